package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MarkerEnv is set in a confined command's environment (to the
// confinement in force): ocfetch run inside the sandbox reads it to say
// why its files are read-only. Only a message depends on it; the mounts
// (and the Seatbelt profile) are the enforcement.
const MarkerEnv = "OCFETCH_SANDBOX"

// Confinement names the filesystem confinement in force for a started
// command: "landlock+mount-namespace", or "mount-namespace" where the
// Linux kernel has no Landlock; "seatbelt" on macOS.
func (c *Cmd) Confinement() string { return c.confinement }

// Filesystem is what a confined command may write and read, on Linux and
// macOS. Set it on [Cmd] before [Cmd.Start]; nil leaves the filesystem as
// it is, except /proc/sys (read-only on Linux whatever Filesystem says).
//
// Every path must be absolute. Paths that do not exist are dropped from
// Writable, ReadOnly and DenyRead (the caller checks the user's own
// paths first, see [CheckPaths]); a Protected path that does not exist
// keeps its nearest existing ancestor read-only when that ancestor could
// otherwise be written, so that the file cannot be created inside.
type Filesystem struct {
	// Protected are the files and directories that decide or record the
	// command's network (the workspace's .oc_chat/, the user's
	// configuration directory, the managed policy, the audit log). They
	// are read-only inside, wherever they are, and so are their
	// directory entries: neither they nor a directory leading to them
	// can be renamed or removed from inside.
	Protected []string
	// Writable are the directories (or files) under which the command may
	// create, change, rename and delete, as well as the system temporary
	// directory. Everything else is read-only, bar a few devices
	// (/dev/null, the terminal, /dev/shm).
	Writable []string
	// WriteAnywhere lifts the write allow-list (`--allow-write /`):
	// Protected and the dangerous files of [DangerousNames] stay
	// read-only.
	WriteAnywhere bool
	// DenyRead are files and directories the command cannot read: a
	// directory is replaced by an empty one, a file by an empty file.
	DenyRead []string

	// noLandlock makes the Linux sandbox use the mount namespace alone,
	// as on a kernel without Landlock (tests).
	noLandlock bool
}

// DangerousNames are the paths, relative to each writable root, that a
// process outside the sandbox will later execute or obey, so they stay
// read-only inside a writable root (the list of sandbox-runtime's
// "dangerous files", with the files of .git that git runs or obeys rather
// than the whole .git): git's hooks and configuration, shell start-up
// files, editor and agent configuration that runs commands.
var DangerousNames = []string{
	".git/hooks", ".git/config",
	".gitconfig", ".gitmodules", ".config/git",
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zprofile", ".zshenv", ".zlogin", ".config/fish",
	".ripgreprc", ".mcp.json", ".vscode", ".idea", ".claude/commands", ".claude/agents",
}

// Plan is a resolved [Filesystem]: what the sandbox will do, printed by
// `ocfetch run --explain` and carried to the namespace's first process.
type Plan struct {
	// Writable are the roots (real paths) the command may write under;
	// empty with WriteAnywhere.
	Writable      []string `json:"writable,omitempty"`
	WriteAnywhere bool     `json:"write_anywhere,omitempty"`
	// Devices may be opened for writing, nothing else (Linux).
	Devices []string `json:"devices,omitempty"`
	// Mounts are the read-only islands, pinned entries and hidden paths,
	// shallowest first.
	Mounts     []Mount `json:"mounts,omitempty"`
	NoLandlock bool    `json:"no_landlock,omitempty"`
}

// MountKind is what one [Mount] does to its path.
type MountKind string

// The kinds of [Mount].
const (
	// Pin binds a directory onto itself, writable: it becomes a mount
	// point, which cannot be renamed or removed, so a protected path
	// under it cannot be moved away and replaced.
	Pin MountKind = "pin"
	// ReadOnly binds a path onto itself read-only.
	ReadOnly MountKind = "read-only"
	// HideDir puts an empty, read-only directory over a directory.
	HideDir MountKind = "hide-dir"
	// HideFile puts an empty file (/dev/null) over a file.
	HideFile MountKind = "hide-file"
)

// Mount is one step of a [Plan].
type Mount struct {
	Kind MountKind `json:"kind"`
	Path string    `json:"path"`
	// Why names the rule that put the path here: "policy", "dangerous",
	// "kernel", "deny-read", "pin".
	Why string `json:"why"`
}

// devices are the device files and directories a confined command may
// write without a writable root: the bit bucket, the terminal, shared
// memory.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm"}

// ErrPathMissing is wrapped by [CheckPaths] for a path that does not exist.
var ErrPathMissing = errors.New("no such file or directory")

// CheckPaths returns an error naming flag and the first of paths that is
// not absolute after cleaning or does not exist (the flags
// --allow-write and --deny-read take existing paths only: a typo must not
// confine less than the user meant).
func CheckPaths(flag string, paths []string) error {
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("%s %s: the path must be absolute", flag, p)
		}
		if _, err := os.Lstat(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%s %s: %w", flag, p, ErrPathMissing)
			}
			return fmt.Errorf("%s %s: %w", flag, p, err)
		}
	}
	return nil
}

// realPath resolves p's symlinks; for a path that does not exist, its
// nearest existing ancestor's, with the rest appended. ok reports whether
// p itself exists. On macOS every existing name is then spelled as its
// directory lists it (canonical).
func realPath(p string) (string, bool) {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return canonical(r), true
	}
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir)
	if dir == p {
		return p, false
	}
	r, _ := realPath(dir)
	return filepath.Join(r, base), false
}

// within reports whether p is root or beneath it.
func within(p, root string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+"/")
}

// Resolve computes the plan for f: real paths, the dangerous files found
// in each writable root and in the home directory (home, when it lies in
// a writable root), the directories to pin, in mount order. A nil f gives
// the plan of /proc/sys alone.
func (f *Filesystem) Resolve(home string) *Plan {
	p := &Plan{}
	if f == nil {
		p.WriteAnywhere = true
		p.add(ReadOnly, "/proc/sys", "kernel")
		return p
	}
	p.NoLandlock = f.noLandlock
	p.WriteAnywhere = f.WriteAnywhere
	if !f.WriteAnywhere {
		for _, w := range append([]string{os.TempDir()}, f.Writable...) {
			if r, ok := realPath(w); ok && !slices.Contains(p.Writable, r) {
				p.Writable = append(p.Writable, r)
			}
		}
		for _, d := range devices {
			if _, err := os.Stat(d); err == nil {
				p.Devices = append(p.Devices, d)
			}
		}
	}
	writable := func(path string) bool {
		if p.WriteAnywhere {
			return true
		}
		for _, w := range p.Writable {
			if within(path, w) {
				return true
			}
		}
		return false
	}
	var ro []Mount
	for _, q := range f.Protected {
		r, ok := realPath(q)
		if !ok {
			// Keep the nearest existing ancestor read-only if the command
			// could create the file there.
			for r = filepath.Dir(r); ; r = filepath.Dir(r) {
				if _, err := os.Lstat(r); err == nil || r == "/" {
					break
				}
			}
			if !writable(r) || r == "/" {
				continue
			}
		}
		ro = append(ro, Mount{ReadOnly, r, "policy"})
	}
	roots := slices.Clone(f.Writable)
	if home != "" {
		roots = append(roots, home)
	}
	seen := map[string]bool{}
	for _, w := range roots {
		r, ok := realPath(w)
		if !ok || seen[r] || !writable(r) {
			continue
		}
		seen[r] = true
		if fi, err := os.Lstat(filepath.Join(r, ".git")); err == nil && !fi.IsDir() {
			// A worktree's .git file points git elsewhere.
			ro = append(ro, Mount{ReadOnly, filepath.Join(r, ".git"), "dangerous"})
		}
		for _, n := range DangerousNames {
			d := filepath.Join(r, n)
			if fi, err := os.Lstat(d); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
				ro = append(ro, Mount{ReadOnly, d, "dangerous"})
			}
		}
	}
	ro = append(ro, Mount{ReadOnly, "/proc/sys", "kernel"})
	// Pin every directory on the way to a read-only island whose parent
	// the command could write: renaming it away and putting another in
	// its place would replace the island.
	for _, m := range ro {
		for a := filepath.Dir(m.Path); a != "/" && a != "." && m.Why != "kernel"; a = filepath.Dir(a) {
			if writable(filepath.Dir(a)) {
				p.add(Pin, a, "pin")
			}
		}
		p.add(m.Kind, m.Path, m.Why)
	}
	for _, q := range f.DenyRead {
		r, ok := realPath(q)
		if !ok {
			continue
		}
		fi, err := os.Stat(r)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			p.add(HideDir, r, "deny-read")
		} else {
			p.add(HideFile, r, "deny-read")
		}
	}
	p.sort()
	return p
}

// add appends a mount unless one for the same path is there: a read-only
// island or a hidden path wins over a pin.
func (p *Plan) add(k MountKind, path, why string) {
	for i, m := range p.Mounts {
		if m.Path == path {
			if m.Kind == Pin && k != Pin {
				p.Mounts[i] = Mount{k, path, why}
			} else if (k == HideDir || k == HideFile) && m.Kind == ReadOnly {
				p.Mounts[i] = Mount{k, path, why}
			}
			return
		}
	}
	p.Mounts = append(p.Mounts, Mount{k, path, why})
}

// sort orders the mounts for the namespace: pins first (they bind whole
// subtrees), then read-only islands, then hidden paths, each shallowest
// first, so a later mount lands on top of an earlier one.
func (p *Plan) sort() {
	rank := map[MountKind]int{Pin: 0, ReadOnly: 1, HideDir: 2, HideFile: 2}
	slices.SortStableFunc(p.Mounts, func(a, b Mount) int {
		if rank[a.Kind] != rank[b.Kind] {
			return rank[a.Kind] - rank[b.Kind]
		}
		return strings.Count(a.Path, "/") - strings.Count(b.Path, "/")
	})
	// A mount beneath a hidden directory has nothing to land on.
	var out []Mount
	for _, m := range p.Mounts {
		hidden := false
		for _, h := range p.Mounts {
			if h.Kind == HideDir && h.Path != m.Path && within(m.Path, h.Path) {
				hidden = true
			}
		}
		if !hidden {
			out = append(out, m)
		}
	}
	p.Mounts = out
}

// Describe writes the plan as lines for a person: what may be written,
// what stays read-only, what cannot be read, and by which mechanism
// (mech, as [Cmd.Confinement] or [Mechanism] names it).
func (p *Plan) Describe(mech string) []string {
	var out []string
	out = append(out, "filesystem confinement: "+mech)
	if p.WriteAnywhere {
		out = append(out, "writable: everywhere (--allow-write /), except the read-only paths below")
	} else {
		out = append(out, "writable: "+strings.Join(p.Writable, ", "))
		if len(p.Devices) > 0 {
			out = append(out, "writable devices: "+strings.Join(p.Devices, ", "))
		}
	}
	for _, m := range p.Mounts {
		switch m.Kind {
		case ReadOnly:
			out = append(out, "read-only ("+m.Why+"): "+m.Path)
		case HideDir, HideFile:
			out = append(out, "unreadable (deny-read): "+m.Path)
		case Pin:
			out = append(out, "cannot be renamed or removed: "+m.Path)
		}
	}
	return out
}
