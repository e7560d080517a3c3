package trust

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ocfetch/ocfetch/workspace"
)

// MarkerFile is the name, in a workspace's .oc_chat/, of the marker that
// tells one incarnation of the directory from the next where the file
// system records no birth time: random bytes that ocfetch writes when it
// trusts the workspace, whose SHA-256 the store keeps.
const MarkerFile = "trust_marker"

// maxMarker bounds what is read of a marker file: ocfetch writes ~140
// bytes.
const maxMarker = 4 << 10

// The kinds of Entry.Incarnation.
const (
	birthPrefix  = "birth:"
	markerPrefix = "marker:"
)

// ident is what the file system says about one directory: its identity
// (device and inode; volume serial and file index on Windows) and its
// birth — the birth time, with the 128-bit file ID on Windows — or ""
// where the file system records none.
type ident struct {
	id    string
	birth string
}

// devIno formats a device and inode as the entries have always recorded
// them: "dev:ino". (strconv, not fmt: this is on every call's path.)
func devIno(dev, ino uint64) string {
	var buf [42]byte
	b := strconv.AppendUint(buf[:0], dev, 10)
	b = append(b, ':')
	return string(strconv.AppendUint(b, ino, 10))
}

// newMarker returns the contents of a fresh marker file and the
// incarnation that records it. 32 bytes of crypto/rand: nobody who has
// not read this file can write one that matches.
func newMarker() (data []byte, incarnation string) {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	data = fmt.Appendf(nil, "%x\n# ocfetch: this directory's trust marker, a secret of this machine: do not copy or commit it\n", b)
	return data, markerIncarnation(data)
}

func markerIncarnation(data []byte) string {
	sum := sha256.Sum256(data)
	return markerPrefix + hex.EncodeToString(sum[:])
}

func markerPath(root string) string {
	return filepath.Join(root, workspace.DirName, MarkerFile)
}

// markerMatches reports whether root's marker file is the one whose
// SHA-256 incarnation records. The file is read through an os.Root
// (internal/securefile): a symlink, a FIFO or anything but a small
// regular file is no match.
func markerMatches(root, incarnation string) bool {
	data, err := workspace.ReadFileLimit(markerPath(root), maxMarker)
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(markerIncarnation(data)), []byte(incarnation)) == 1
}

// validIncarnation says whether s is an incarnation this package writes:
// "birth:" and the platform's birth (digits, hex, ".", "@"), or "marker:"
// and a lower-case hex SHA-256.
func validIncarnation(s string) bool {
	if rest, ok := strings.CutPrefix(s, markerPrefix); ok {
		return len(rest) == 2*sha256.Size && strings.Trim(rest, "0123456789abcdef") == ""
	}
	rest, ok := strings.CutPrefix(s, birthPrefix)
	return ok && rest != "" && len(rest) <= 128 && strings.Trim(rest, "0123456789abcdef.@") == ""
}

// state compares what is at path now with e.
func (e Entry) state(path string) State {
	now, err := identify(path)
	return e.stateOf(path, now, err)
}

// stateOf compares now, what identify said about path (or its error),
// with e.
func (e Entry) stateOf(path string, now ident, err error) State {
	switch {
	case err != nil:
		return Missing
	case e.ID != "" && now.id != e.ID:
		return Replaced
	case strings.HasPrefix(e.Incarnation, birthPrefix):
		if now.birth == "" || birthPrefix+now.birth != e.Incarnation {
			return Replaced
		}
	case strings.HasPrefix(e.Incarnation, markerPrefix):
		if !markerMatches(path, e.Incarnation) {
			return Replaced
		}
	}
	return Present
}
