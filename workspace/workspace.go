// Package workspace resolves the one project root every ocfetch file lives
// under and reads those files fail-closed.
//
// The root is resolved in ONE place ([Resolve]) and every reader and writer
// of `.oc_chat/` takes its paths from the resulting [Workspace], so local
// mode, the rules and the audit log can never disagree about which project
// is active.
//
//	ws, err := workspace.Resolve(flagRoot, mcpRoot)
//	data, err := workspace.ReadSmallFile(ws.RulesPath())
package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Names of the workspace directory and its files.
const (
	DirName          = ".oc_chat"
	LocalFetchFile   = "local_fetch.json"
	RulesFile        = "rules.json"
	SettingsFile     = "settings.json"
	AuditFile        = "audit.jsonl"
	MaxSmallFileSize = 64 << 10
)

// Workspace is a resolved project root.
type Workspace struct {
	// Root is an absolute, cleaned directory path.
	Root string
}

// Resolve returns the workspace for the first non-empty candidate root
// (in order: the --root flag, the MCP client's first file:// root), else the
// current directory. The root must exist and be a directory.
func Resolve(candidates ...string) (Workspace, error) {
	root := ""
	for _, c := range candidates {
		if c != "" {
			root = c
			break
		}
	}
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Workspace{}, fmt.Errorf("workspace: current directory: %w", err)
		}
		root = wd
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return Workspace{}, fmt.Errorf("workspace: root %s: %w", root, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return Workspace{}, fmt.Errorf("workspace: root %s: %w", abs, err)
	}
	if !fi.IsDir() {
		return Workspace{}, fmt.Errorf("workspace: root %s is not a directory", abs)
	}
	return Workspace{Root: abs}, nil
}

// Dir returns <root>/.oc_chat.
func (w Workspace) Dir() string { return filepath.Join(w.Root, DirName) }

// LocalFetchPath returns the loopback allowlist path.
func (w Workspace) LocalFetchPath() string { return filepath.Join(w.Dir(), LocalFetchFile) }

// RulesPath returns the rule store path.
func (w Workspace) RulesPath() string { return filepath.Join(w.Dir(), RulesFile) }

// SettingsPath returns the settings path.
func (w Workspace) SettingsPath() string { return filepath.Join(w.Dir(), SettingsFile) }

// AuditPath returns the audit log path.
func (w Workspace) AuditPath() string { return filepath.Join(w.Dir(), AuditFile) }

// EnsureDir creates <root>/.oc_chat (0o755) if it does not exist.
func (w Workspace) EnsureDir() error {
	if err := os.MkdirAll(w.Dir(), 0o755); err != nil {
		return fmt.Errorf("workspace: create %s: %w", w.Dir(), err)
	}
	return nil
}

// ErrNotRegular is wrapped when a workspace file is a directory, device,
// FIFO, socket or anything else that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped when a workspace file exceeds its size limit.
var ErrTooLarge = errors.New("file too large")

// ReadSmallFile reads a workspace file of at most [MaxSmallFileSize] bytes,
// fail-closed: it refuses anything that is not a regular file (following a
// symlink to its target, so a link to /dev/zero is refused) and anything
// larger than the limit, and it never blocks on a FIFO. A missing file
// returns an error wrapping fs.ErrNotExist. Errors name the file.
func ReadSmallFile(path string) ([]byte, error) {
	return ReadFileLimit(path, MaxSmallFileSize)
}

// ReadFileLimit is [ReadSmallFile] with another size limit, for the one
// workspace file allowed to be larger (the rule store).
func ReadFileLimit(path string, limit int64) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
	// writer. The type check is on the opened descriptor, not the name, so
	// the file cannot be swapped between check and read.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, typeName(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes, limit %d)", path, ErrTooLarge, fi.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (limit %d)", path, ErrTooLarge, limit)
	}
	return data, nil
}

func typeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return "mode " + m.Type().String()
	}
}
