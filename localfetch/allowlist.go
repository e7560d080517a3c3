package localfetch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ocfetch/ocfetch/capability"
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
const allowlistHint = `the file must read {"schema_version": 1, "ports": [3000, 8080]}; ` +
	`fix it, or delete it and run "ocfetch local allow PORT"`

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
// mode and every other reader agree on which project is active.
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
// Duplicate ports are allowed and collapse. The file is read anew on every
// call; nothing is cached.
func ReadAllowedPorts(ws workspace.Workspace) (Ports, error) {
	path := AllowlistPath(ws)
	if !filepath.IsAbs(path) {
		// A zero Workspace would otherwise read relative to the process's
		// current directory: another project's allowlist.
		return nil, refusal.Newf(refusal.LocalAllowlistInvalid,
			"local allowlist %s is not an absolute path: no workspace root is set", path).
			WithHint("resolve the workspace root (--root) before reading the allowlist")
	}
	data, err := workspace.ReadSmallFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, refusal.Newf(refusal.LocalAllowlistMissing,
			"local allowlist %s does not exist, so no local port is allowed", path).
			WithHint(`run "ocfetch local allow PORT" to create it`).Wrap(err)
	}
	if err != nil {
		// err names the file and the OS reason (not a regular file, too
		// large, permission denied).
		return nil, refusal.Newf(refusal.LocalAllowlistInvalid,
			"local allowlist cannot be used, so no local port is allowed: %v", err).
			WithHint(allowlistHint).Wrap(err)
	}
	ports, err := parseAllowlist(data)
	if err != nil {
		return nil, refusal.Newf(refusal.LocalAllowlistInvalid,
			"local allowlist %s is invalid, so no local port is allowed: %v", path, err).
			WithHint(allowlistHint).Wrap(err)
	}
	return ports, nil
}

// parseAllowlist decodes the allowlist token by token (json.Decoder with
// UseNumber), so that 3000.0, "3000" and true are told apart from 3000,
// duplicate keys and keys in another case are seen, and trailing data is
// refused — all things json.Unmarshal would smooth over. It never descends
// into a nested value: a list or object where a scalar belongs is refused at
// its first token, so nesting depth costs nothing.
func parseAllowlist(data []byte) (Ports, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("the bytes are not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err == io.EOF {
		return nil, errors.New("the file is empty; want a JSON object")
	}
	if err != nil {
		return nil, syntaxError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("the top level is %s; want a JSON object", describe(tok))
	}
	var (
		seen        = make(map[string]bool, 2)
		haveVersion bool
		ports       Ports
		havePorts   bool
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxError(err)
		}
		key, ok := tok.(string)
		if !ok { // unreachable: the decoder yields only string keys
			return nil, fmt.Errorf("an object key is %s", describe(tok))
		}
		if seen[key] {
			return nil, fmt.Errorf("duplicate key %q", capability.Sanitize(key))
		}
		seen[key] = true
		switch key {
		case "schema_version":
			tok, err := dec.Token()
			if err != nil {
				return nil, syntaxError(err)
			}
			n, ok := tok.(json.Number)
			if !ok || !isUnsignedInteger(string(n)) {
				return nil, fmt.Errorf("schema_version is %s; want the integer %d", describe(tok), SchemaVersion)
			}
			if string(n) != strconv.Itoa(SchemaVersion) {
				return nil, fmt.Errorf("schema_version %s is not supported; want %d", capability.Sanitize(string(n)), SchemaVersion)
			}
			haveVersion = true
		case "ports":
			if ports, err = parsePorts(dec); err != nil {
				return nil, err
			}
			havePorts = true
		default:
			return nil, fmt.Errorf("unknown key %q (known: schema_version, ports)", capability.Sanitize(key))
		}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, syntaxError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON object")
	}
	if !haveVersion {
		return nil, fmt.Errorf("schema_version is missing; want %d", SchemaVersion)
	}
	if !havePorts {
		return nil, errors.New(`"ports" is missing; want a list of ports`)
	}
	return NewPorts(ports...), nil
}

// parsePorts reads the value of "ports": a list of integer literals
// 1–65535. One bad entry refuses the whole list.
func parsePorts(dec *json.Decoder) (Ports, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("ports is %s; want a list of ports", describe(tok))
	}
	ports := Ports{}
	for i := 0; dec.More(); i++ {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxError(err)
		}
		n, ok := tok.(json.Number)
		if !ok || !isUnsignedInteger(string(n)) {
			return nil, fmt.Errorf("ports[%d] is %s; want an integer 1–65535", i, describe(tok))
		}
		p, err := strconv.ParseUint(string(n), 10, 16)
		if err != nil || p == 0 {
			return nil, fmt.Errorf("ports[%d] is %s; want an integer 1–65535", i, describe(tok))
		}
		ports = append(ports, uint16(p))
	}
	if _, err := dec.Token(); err != nil { // the closing ']'
		return nil, syntaxError(err)
	}
	return ports, nil
}

// isUnsignedInteger reports whether a JSON number literal is a plain
// non-negative integer: no sign, fraction or exponent.
func isUnsignedInteger(lit string) bool {
	if lit == "" {
		return false
	}
	for i := 0; i < len(lit); i++ {
		if lit[i] < '0' || lit[i] > '9' {
			return false
		}
	}
	return true
}

// syntaxError describes a decoder error without the decoder's own prefix.
func syntaxError(err error) error {
	var se *json.SyntaxError
	switch {
	case err == io.EOF, errors.Is(err, io.ErrUnexpectedEOF):
		// Inside a value the decoder reports a cut-off file as io.EOF.
		return errors.New("invalid JSON: unexpected end of file")
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// describe names a decoder token for a message: a number by its (sanitized)
// literal, so that 3000.0 and 3000 read differently, anything else by kind.
func describe(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return "an object"
		case '[':
			return "a list"
		}
		return strconv.Quote(string(t))
	case bool:
		return strconv.FormatBool(t)
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", capability.Sanitize(t))
	case json.Number:
		return capability.Sanitize(string(t))
	}
	return fmt.Sprintf("%T", tok)
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
