package localfetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/strictjson"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/workspace"
)

// Where the allowlist lives and what it must say.
const (
	// DirName is the workspace directory that holds the allowlist.
	DirName = workspace.DirName
	// FileName is the allowlist's name inside [DirName].
	FileName = workspace.LocalFetchFile
	// SchemaVersion is the only "schema_version" the allowlist may carry.
	SchemaVersion = 1
	// Profile is the only risk profile under which local mode admits
	// anything.
	Profile = risk.Permissive
)

// LocalHosts are the three named local hosts, in normalised form. The
// admission rule does not consult this variable (it cannot be widened at
// run time); it is exported for documentation and messages.
var LocalHosts = [...]string{"localhost", "127.0.0.1", "::1"}

// LocalSchemes are the schemes local mode admits. Like [LocalHosts] it is
// informative: the rule itself is compiled in.
var LocalSchemes = [...]string{"http", "https"}

// allowlistHint says what a valid file looks like.
const allowlistHint = allowlistShape + `; fix it, or delete it and run "ocfetch local allow PORT"`

// allowlistModelHint is allowlistHint for a model (refusal.Error.ModelHint).
var allowlistModelHint = allowlistShape + "; " + refusal.AskUserToRun(allowCommand("PORT")) + " once they have fixed or deleted it"

const allowlistShape = `the file must read {"schema_version": 1, "ports": [3000, 8080]}`

// allowCommand is the command that adds port (a number, or "PORT") to
// the allowlist, for a person to run.
func allowCommand(port string) string { return "ocfetch local allow " + port }

// lockWait bounds how long [WriteAllowedPorts] waits for the allowlist lock.
const lockWait = 10 * time.Second

// Ports is a sorted, duplicate-free list of allowed ports (1–65535), as read
// by [ReadAllowedPorts]. Build one with [NewPorts]; a nil Ports allows
// nothing.
type Ports []uint16

// NewPorts returns ps sorted with duplicates removed. Port 0 is not a port
// and is dropped.
func NewPorts(ps ...uint16) Ports {
	out := make(Ports, 0, len(ps))
	for _, p := range ps {
		if p != 0 {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Contains reports whether port is allowed. It does not rely on p being
// sorted.
func (p Ports) Contains(port uint16) bool { return port != 0 && slices.Contains(p, port) }

// String returns the ports as "3000, 8080", or "none".
func (p Ports) String() string {
	if len(p) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, port := range p {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(int(port)))
	}
	return b.String()
}

// AllowlistPath returns <root>/.oc_chat/local_fetch.json for ws: the one
// allowlist of the one resolved workspace ([workspace.Resolve]), so local
// mode and every other reader agree on which project is active. It is
// ws.LocalFetchPath().
func AllowlistPath(ws workspace.Workspace) string { return ws.LocalFetchPath() }

// ReadAllowedPorts reads the allowlist of ws and returns its ports.
//
// It fails closed at every step and every error is an *refusal.Error whose
// message names the file:
//
//   - a missing file is local_allowlist_missing (hint: `ocfetch local allow
//     PORT` creates it);
//   - everything else is local_allowlist_invalid and admits nothing, not even
//     the entries that happened to parse: a file that is not a regular file
//     (a directory, a FIFO — never waited on — a link to /dev/zero), larger
//     than 64 KiB or unreadable; bytes that are not UTF-8; invalid JSON or
//     trailing data; a top level that is not an object; a duplicate or
//     unknown key; "schema_version" missing or anything but the integer
//     literal 1 (1.0, "1", true are refused); "ports" missing or not a list;
//     and any entry of "ports" that is not an integer literal 1–65535 (true,
//     false, null, "3000", 3000.0, 1e3, 0, -1, 65536, lists, objects).
//
// Duplicate ports are allowed and collapse. The file is checked on every
// call — one lstat of .oc_chat, one fstatat of the file under its open
// handle — and read anew whenever its identity (device, inode, size, mode,
// owner, mtime, ctime) changed or it changed within the last two seconds
// ([securefile.Cache]; on Windows it is read on every call): an edit takes
// effect on the next call and a deletion closes the door on the next call.
func ReadAllowedPorts(ws workspace.Workspace) (Ports, error) {
	ports, err := readAllowedPorts(nil, ws)
	return slices.Clone(ports), err
}

// ReadAllowedPortsContext is [ReadAllowedPorts] within the call ctx
// carries ([securefile.WithCall]): the ports [AdmitContext] decided that
// call on, as its diagnostics name them.
func ReadAllowedPortsContext(ctx context.Context, ws workspace.Workspace) (Ports, error) {
	ports, err := readAllowedPorts(securefile.CallFrom(ctx), ws)
	return slices.Clone(ports), err
}

// readAllowedPorts is ReadAllowedPorts within call, without the copy: the
// ports are shared and not to be modified.
func readAllowedPorts(call *securefile.Call, ws workspace.Workspace) (Ports, error) {
	path := AllowlistPath(ws)
	if !filepath.IsAbs(path) {
		// A zero Workspace would otherwise read relative to the process's
		// current directory: another project's allowlist.
		return nil, refusal.Newf(refusal.LocalAllowlistInvalid,
			"local allowlist %s is not an absolute path: no workspace root is set", path).
			WithHint("resolve the workspace root (--root) before reading the allowlist")
	}
	return allowlists.LoadIn(call, path)
}

// allowlists holds the last parse of each local_fetch.json read, checked
// by a stat on every call (see [securefile.Cache]).
var allowlists = securefile.NewCache(workspace.MaxSmallFileSize, 256, decodeAllowlist)

func decodeAllowlist(path string, data []byte, _ fs.FileInfo, err error) (Ports, error) {
	if errors.Is(err, fs.ErrNotExist) {
		return nil, refusal.Newf(refusal.LocalAllowlistMissing,
			"local allowlist %s does not exist, so no local port is allowed", path).
			WithHints(`run "ocfetch local allow PORT" to create it`, refusal.AskUserToRun(allowCommand("PORT"))).Wrap(err)
	}
	if err != nil {
		// err names the file and the OS reason (not a regular file, too
		// large, permission denied).
		return nil, refusal.Newf(refusal.LocalAllowlistInvalid,
			"local allowlist cannot be used, so no local port is allowed: %v", err).
			WithHints(workspace.SmallFileHint(path)+"; "+allowlistHint, workspace.SmallFileHint(path)+"; "+allowlistModelHint).Wrap(err)
	}
	ports, err := parseAllowlist(data)
	if err != nil {
		return nil, refusal.Newf(refusal.LocalAllowlistInvalid,
			"local allowlist %s is invalid, so no local port is allowed: %v", path, err).
			WithHints(allowlistHint, allowlistModelHint).Wrap(err)
	}
	return ports, nil
}

// allowlistJSON is the allowlist's structure: two known keys, and nothing
// nested deeper than the list of ports.
var allowlistJSON = strictjson.Walker{MaxDepth: 2, Keys: []string{"schema_version", "ports"}}

// parseAllowlist checks the allowlist in one pass ([strictjson.Walker]), so
// that 3000.0, "3000" and true are told apart from 3000, duplicate keys and
// keys in another case are refused, and trailing data is seen — all things
// json.Unmarshal would smooth over. Each value is judged before the walk
// enters it: a list or object where a scalar belongs is refused at its
// first byte, so nesting depth costs nothing.
func parseAllowlist(data []byte) (Ports, error) {
	var (
		haveVersion bool
		ports       Ports
	)
	err := allowlistJSON.Walk(data, func(p strictjson.Path, v strictjson.Value) error {
		switch {
		case len(p) == 0:
			if v.Kind != strictjson.Object {
				return fmt.Errorf("the top level is %s; want a JSON object", strictjson.Describe(v))
			}
		case len(p) == 2: // ports[i]: only "ports" holds a list
			port, ok := strictjson.Int(v.Raw, 1, 65535)
			if !ok {
				return fmt.Errorf("ports[%d] is %s; want an integer 1–65535", p[1].Index, strictjson.Describe(v))
			}
			ports = append(ports, uint16(port))
		case p[0].Key == "schema_version":
			n, ok := strictjson.Int(v.Raw, 0, math.MaxInt64)
			if !ok {
				return fmt.Errorf("schema_version is %s; want the integer %d", strictjson.Describe(v), SchemaVersion)
			}
			if n != SchemaVersion {
				return fmt.Errorf("schema_version %s is not supported; want %d", v.Raw, SchemaVersion)
			}
			haveVersion = true
		case p[0].Key == "ports":
			if v.Kind != strictjson.Array {
				return fmt.Errorf("ports is %s; want a list of ports", strictjson.Describe(v))
			}
			ports = Ports{}
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case !haveVersion:
		return nil, fmt.Errorf("schema_version is missing; want %d", SchemaVersion)
	case ports == nil:
		return nil, errors.New(`"ports" is missing; want a list of ports`)
	}
	return NewPorts(ports...), nil
}

// marshalAllowlist renders the canonical file for ports.
func marshalAllowlist(ports Ports) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"schema_version": %d, "ports": [`, SchemaVersion)
	for i, p := range ports {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(int(p)))
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// WriteAllowedPorts replaces the allowlist of ws with ports (sorted,
// deduplicated) as {"schema_version": 1, "ports": [...]}, atomically
// ([workspace.WriteFileAtomic]) and under the allowlist's lock
// ([workspace.LockFile]), waiting at most 10 seconds for the lock. It
// refuses port 0 with invalid_arguments. It is for the user's `ocfetch
// local` commands; tools never call it. Prefer [AllowPort] and [RevokePort],
// which keep what is already in the file.
func WriteAllowedPorts(ws workspace.Workspace, ports Ports) error {
	if slices.Contains(ports, 0) {
		return refusal.New(refusal.InvalidArguments, "port 0 cannot be allowed; want 1–65535")
	}
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	path := AllowlistPath(ws)
	unlock, err := workspace.LockFile(ctx, path)
	if err != nil {
		return err
	}
	defer unlock()
	return writeAllowlist(path, NewPorts(ports...))
}

func writeAllowlist(path string, ports Ports) error {
	return workspace.WriteFileAtomic(path, marshalAllowlist(ports), 0o644)
}

// AllowPort adds port to the allowlist of ws under its lock (read, modify,
// write) and returns the ports now allowed. A missing file is created. An
// invalid file is refused with its local_allowlist_invalid error and left
// exactly as it was: nothing the user wrote is lost. Allowing a port that is
// already listed does not rewrite the file.
func AllowPort(ctx context.Context, ws workspace.Workspace, port uint16) (Ports, error) {
	if port == 0 {
		return nil, refusal.New(refusal.InvalidArguments, "port 0 cannot be allowed; want 1–65535")
	}
	return modify(ctx, ws, func(ports Ports, missing bool) (Ports, bool) {
		if ports.Contains(port) {
			return ports, false
		}
		return NewPorts(append(slices.Clone(ports), port)...), true
	})
}

// RevokePort removes port from the allowlist of ws under its lock and
// returns the ports still allowed. Revoking from a missing file, or a port
// that is not listed, changes nothing and is not an error (the door is
// already closed); an invalid file is refused and left as it was. Revoking
// the last port leaves a file with an empty list, which admits nothing.
func RevokePort(ctx context.Context, ws workspace.Workspace, port uint16) (Ports, error) {
	return modify(ctx, ws, func(ports Ports, missing bool) (Ports, bool) {
		if missing || !ports.Contains(port) {
			return ports, false
		}
		return slices.DeleteFunc(slices.Clone(ports), func(p uint16) bool { return p == port }), true
	})
}

// modify runs one locked read-modify-write cycle. change gets the current
// ports (nil and missing=true when there is no file) and returns the new
// list and whether to write it.
func modify(ctx context.Context, ws workspace.Workspace, change func(ports Ports, missing bool) (Ports, bool)) (Ports, error) {
	path := AllowlistPath(ws)
	if !filepath.IsAbs(path) {
		return nil, refusal.Newf(refusal.LocalAllowlistInvalid,
			"local allowlist %s is not an absolute path: no workspace root is set", path).
			WithHint("resolve the workspace root (--root) before changing the allowlist")
	}
	unlock, err := workspace.LockFile(ctx, path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	ports, err := ReadAllowedPorts(ws)
	missing := refusal.CodeOf(err) == refusal.LocalAllowlistMissing
	if err != nil && !missing {
		return nil, err
	}
	next, write := change(ports, missing)
	if !write {
		return ports, nil
	}
	if err := writeAllowlist(path, next); err != nil {
		return nil, err
	}
	return next, nil
}
