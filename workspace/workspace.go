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
	// Raw system calls rather than os.File: these files are read on every
	// call (local mode's contract), and os.File registers each descriptor
	// with the runtime poller, which costs more than the read itself.
	//
	// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
	// writer. The type check is on the opened descriptor, not the name, so
	// the file cannot be swapped between check and read.
	fd, err := open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if mode := fileMode(uint32(st.Mode)); !mode.IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, typeName(mode))
	}
	if st.Size > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes, limit %d)", path, ErrTooLarge, st.Size, limit)
	}
	buf := make([]byte, st.Size+1)
	n := 0
	for {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if m == 0 {
			break
		}
		n += m
		if int64(n) == st.Size {
			// All fstat promised: stop without the extra read(2) for EOF.
			// A file that grew since holds more than this snapshot; its
			// writer replaces it atomically, and the next call reads that.
			break
		}
		if n == len(buf) {
			if int64(n) > limit {
				return nil, fmt.Errorf("%s: %w (limit %d)", path, ErrTooLarge, limit)
			}
			// The file grew since fstat: read on, never past limit+1.
			grow := min(int64(len(buf)), limit+1-int64(n))
			buf = append(buf, make([]byte, grow)...)
		}
	}
	return buf[:n], nil
}

func open(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

func fstat(fd int, st *syscall.Stat_t) error {
	for {
		if err := syscall.Fstat(fd, st); err != syscall.EINTR {
			return err
		}
	}
}

// fileMode maps the S_IFMT bits of a stat mode to fs.FileMode type bits.
func fileMode(m uint32) fs.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFREG:
		return 0
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
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
