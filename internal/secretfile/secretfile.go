// Package secretfile keeps a secret of ocfetch's own listeners in a file
// only its owner can read: the proxy's credentials (`ocfetch proxy`) and
// the MCP server's bearer token (`ocfetch mcp --http`). It is the one
// implementation of "load or create a secret file", so the two cannot
// drift.
//
// A secret file is read under internal/securefile's rules (a symlink at
// the file or its directory is refused, never followed; a regular file
// only, never a FIFO that would hang) and must be at most [MaxSize]
// bytes; a file users other than its owner may read or write is refused
// with [ErrExposed], naming the file and the fix: on Unix by its mode
// (group or other bits set: chmod 600), on Windows by its DACL (an allow
// entry for anyone but the owner, SYSTEM and administrators: icacls),
// where the mode bits stand only for the read-only attribute. A missing
// file is created with a fresh secret: its directory 0700, the file 0600
// (on Windows, a DACL of its own: the user, SYSTEM, Administrators),
// written whole to a temporary file and linked into place, so that a
// reader never sees a partial file and a file another process created
// meanwhile is never replaced — its secret is read and returned instead. A file that starts with a byte order mark
// is refused with [ErrByteOrderMark]. Errors name the file, never its
// content.
//
//	tok, created, err := secretfile.LoadOrCreate(path, newToken, checkToken)
package secretfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ocfetch/ocfetch/internal/rootfile"
	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/strictjson"
)

// The secret files in the user's configuration directory
// (os.UserConfigDir()/ocfetch), named by [Names]. `ocfetch run` keeps a
// sandboxed command from reading each of them.
const (
	ProxyCredentials = "proxy-credentials"
	MCPToken         = "mcp-token"
	// SearchKey is the search backend's API key file (package search's
	// default key_file); KeyPattern matches it and any other key file a
	// search.json names in the directory.
	SearchKey  = "search.key"
	KeyPattern = "*.key"
)

// Names lists every secret file ocfetch keeps in the user's configuration
// directory under a fixed name; key files match [KeyPattern] too.
var Names = []string{ProxyCredentials, MCPToken, SearchKey}

// MaxSize bounds what a secret file may hold.
const MaxSize = 4 << 10

// ErrExposed is returned for a secret file that users other than its
// owner may read or write: a secret others can read guards nothing.
var ErrExposed = errors.New("readable or writable by other users")

// ErrByteOrderMark is returned for a secret file that starts with a byte
// order mark, as Notepad's "UTF-8 with BOM" and Windows PowerShell 5's
// redirections (UTF-16) write: the mark is not part of the secret, and
// sent along it would only fail to authenticate.
var ErrByteOrderMark = errors.New("starts with a byte order mark (BOM), which is not part of the secret; save it without a BOM (UTF-8 or ASCII)")

// CheckNoBOM returns [ErrByteOrderMark] when data starts with a UTF-8 or
// UTF-16 byte order mark, nil otherwise: for the readers of secret files
// a person writes (a search backend's key file, the upstream proxy's
// credentials file) as for [Read].
func CheckNoBOM(data []byte) error {
	if strictjson.ByteOrderMark(data) != "" {
		return ErrByteOrderMark
	}
	return nil
}

// CheckPrivate returns an error wrapping [ErrExposed], naming path, who
// may access it and the fix, when users other than the owner of the file
// f holds open (read from path) may read or write it: on Unix by its mode
// (group or other bits: chmod 600), on Windows by its DACL (an allow entry
// for anyone but the owner, this user, SYSTEM or administrators: icacls).
// fi is f's Stat.
func CheckPrivate(path string, f *os.File, fi fs.FileInfo) error {
	return checkPrivate(path, f, fi)
}

// DefaultPath returns name in the user's configuration directory,
// os.UserConfigDir()/ocfetch.
func DefaultPath(name string) (string, error) {
	dir, err := rootfile.UserDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// Read returns the secret kept in path, white space around it trimmed,
// after check accepted it (check names what is wrong; Read adds the path).
// A missing file returns an error wrapping fs.ErrNotExist.
func Read(path string, check func(string) error) (string, error) {
	f, err := securefile.OpenRead(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if err := checkPrivate(path, f, fi); err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxSize {
		return "", fmt.Errorf("%s: %w (limit %d bytes)", path, securefile.ErrTooLarge, MaxSize)
	}
	if err := CheckNoBOM(data); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	s := strings.TrimSpace(string(data))
	if err := check(s); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// LoadOrCreate returns the secret kept in path ([Read] with check), or,
// when there is none, creates the file with the secret fresh returns and
// reports created. A file created by another process meanwhile wins: its
// secret is returned, and created is false.
func LoadOrCreate(path string, fresh func() (string, error), check func(string) error) (secret string, created bool, err error) {
	secret, err = Read(path, check)
	if !errors.Is(err, fs.ErrNotExist) {
		return secret, false, err
	}
	if secret, err = fresh(); err != nil {
		return "", false, err
	}
	err = create(path, secret+"\n")
	if errors.Is(err, fs.ErrExist) {
		secret, err = Read(path, check)
		return secret, false, err
	}
	if err != nil {
		return "", false, err
	}
	return secret, true, nil
}

// link publishes the temporary file old as new, failing with fs.ErrExist
// when new exists. A variable so that a test can take the path of a file
// system without hard links.
var link = func(r *os.Root, old, new string) error { return r.Link(old, new) }

// create writes data to path, which must not exist: to a temporary file
// in path's directory (0600), synced, then linked to path, so the file
// appears whole or not at all and never replaces another. Where the file
// system has no hard links, path is created exclusively and written.
func create(path, data string) error {
	dir, name := filepath.Dir(path), filepath.Base(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	// The directory is checked as Read checks it (not a symlink), so
	// that nothing is created where it could not be read back.
	if _, err := securefile.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		if err == nil {
			return fmt.Errorf("%s: %w", path, fs.ErrExist)
		}
		return err
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand.Read)
	tmp := "." + name + ".tmp-" + hex.EncodeToString(b[:])
	if err := write(r, tmp, data); err != nil {
		return pathErr(path, err)
	}
	err = link(r, tmp, name)
	r.Remove(tmp)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return pathErr(path, err)
	}
	// No hard links here (FAT, some network shares): the exclusive
	// create, which a reader may see before it is written.
	return pathErr(path, write(r, name, data))
}

// write creates name in r exclusively (0600; on Windows a DACL of this
// user, SYSTEM and Administrators, not inherited) and writes data,
// synced; a file it created but could not write is removed.
func write(r *os.Root, name, data string) error {
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	// 0600 is the whole story on Unix; on Windows the file would inherit
	// its directory's entries, which --token-file or --auth-file may put
	// anywhere: it gets the owner's alone before the secret is written.
	err = makePrivate(filepath.Join(r.Name(), name))
	if err == nil {
		_, err = f.WriteString(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Remove(name)
	}
	return err
}

// pathErr names path in err, dropping the relative name of a
// *fs.PathError or *os.LinkError.
func pathErr(path string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}
