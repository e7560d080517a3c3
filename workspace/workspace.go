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
	"os"
	"path/filepath"

	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/refusal"
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
func (w Workspace) Dir() string {
	return securefile.Memo(dirJoin, w.Root, DirName, func() string { return filepath.Join(w.Root, DirName) })
}

// LocalFetchPath returns the loopback allowlist path.
func (w Workspace) LocalFetchPath() string { return w.file(LocalFetchFile) }

// RulesPath returns the rule store path.
func (w Workspace) RulesPath() string { return w.file(RulesFile) }

// SettingsPath returns the settings path.
func (w Workspace) SettingsPath() string { return w.file(SettingsFile) }

// AuditPath returns the audit log path.
func (w Workspace) AuditPath() string { return w.file(AuditFile) }

// The joins [Workspace] remembers ([securefile.Memo]): every call asks
// for the paths of the workspace's files, which would otherwise be
// joined, cleaned and allocated anew each time.
var (
	dirJoin  = securefile.NewMemoJoin("workspace.Dir")
	fileJoin = securefile.NewMemoJoin("workspace.file")
)

// file returns the path of the file name in [Workspace.Dir].
func (w Workspace) file(name string) string {
	return securefile.Memo(fileJoin, w.Root, name, func() string { return filepath.Join(w.Dir(), name) })
}

// EnsureDir creates <root>/.oc_chat (0o755) if it does not exist, and
// refuses it with workspace_invalid if it is a symlink (never followed) or
// not a directory.
func (w Workspace) EnsureDir() error {
	if err := securefile.EnsureDir(w.Dir()); err != nil {
		return fmt.Errorf("workspace: %w", named(err))
	}
	return nil
}

// ErrNotRegular is wrapped when a workspace file is a directory, device,
// FIFO, socket, symlink or anything else that is not a regular file.
var ErrNotRegular = securefile.ErrNotRegular

// ErrSymlink is wrapped when a workspace file, or .oc_chat itself, is a
// symbolic link: ocfetch refuses it by name and never follows it.
var ErrSymlink = securefile.ErrSymlink

// ErrTooLarge is wrapped when a workspace file exceeds its size limit.
var ErrTooLarge = securefile.ErrTooLarge

// ReadSmallFile reads a workspace file of at most [MaxSmallFileSize] bytes,
// fail-closed: it refuses anything that is not a regular file — a symlink
// at the file or at its directory ([ErrSymlink]: never followed), a FIFO,
// a device, a directory — and anything larger than the limit, and it never
// blocks on a FIFO. The file is opened through an [os.Root] at the
// directory's parent (see [securefile]). A missing file returns an error
// wrapping fs.ErrNotExist. Errors name the file.
//
// Any path DIR/NAME works, not only a workspace's: the user's
// configuration files (os.UserConfigDir()/ocfetch/...) are read the same way.
func ReadSmallFile(path string) ([]byte, error) {
	return ReadFileLimit(path, MaxSmallFileSize)
}

// SmallFileHint is the repair hint for a small workspace file at path
// that cannot be read as a file at all ([ReadSmallFile]'s refusals: a
// symlink there or at .oc_chat, a directory, a FIFO, too large), whose
// content is not the problem.
func SmallFileHint(path string) string {
	return fmt.Sprintf("make %s a regular file of at most %d KiB in a real %s directory (ocfetch never follows a symlink there)",
		path, MaxSmallFileSize>>10, DirName)
}

// ReadFileLimit is [ReadSmallFile] with another size limit, for the one
// workspace file allowed to be larger (the rule store).
func ReadFileLimit(path string, limit int64) ([]byte, error) {
	return securefile.ReadFile(path, limit)
}

// OpenRead opens a workspace file for reading under the checks of
// [ReadSmallFile] (bar the size limit). The caller closes it.
func OpenRead(path string) (*os.File, error) {
	return securefile.OpenRead(path)
}

// OpenAppend opens a workspace file write-only with O_APPEND, creating it
// (and its directory) if missing, never through a symlink and never
// anything but a regular file; a symlink is refused with workspace_invalid.
// One Write to it is one append that a concurrent appender cannot split.
func OpenAppend(path string, perm os.FileMode) (*os.File, error) {
	f, err := securefile.OpenAppend(path, perm)
	return f, named(err)
}

// named turns a write refused because of what is on disk (a symlink, a
// file or directory of the wrong type) into a workspace_invalid refusal
// naming it; other errors are returned as they are. Readers keep the
// plain error, which their callers name with the file's own reason.
func named(err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, securefile.ErrSymlink):
		return refusal.Newf(refusal.WorkspaceInvalid, "%v", err).
			WithHint("remove the symlink (ocfetch writes only real files and directories in .oc_chat), then retry").
			Wrap(err)
	case errors.Is(err, securefile.ErrNotRegular), errors.Is(err, securefile.ErrNotDir), errors.Is(err, securefile.ErrChanged):
		return refusal.Newf(refusal.WorkspaceInvalid, "%v", err).Wrap(err)
	}
	return err
}
