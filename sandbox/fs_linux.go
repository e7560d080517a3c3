//go:build linux

package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// fsEnv carries the [Plan] (JSON) to the namespace's first process, which
// removes it before the command runs.
const fsEnv = "OCFETCH_SANDBOX_FS"

// The confinement the first process reports with the listener.
const (
	confLandlock  = 'l' // Landlock for writes, the mount namespace for the rest
	confMountOnly = 'm' // the mount namespace alone (no Landlock)
)

func confinementName(b byte) string {
	switch b {
	case confLandlock:
		return "landlock+mount-namespace"
	case confMountOnly:
		return "mount-namespace"
	}
	return ""
}

// Mechanism says which confinement the sandbox will use on this kernel
// (what `ocfetch run --explain` prints): Landlock for the write
// allow-list where the kernel has it, the mount namespace for read-only
// islands and hidden paths, and for everything where it has not.
func Mechanism(p *Plan) string {
	abi := landlockABI()
	switch {
	case p.NoLandlock || abi == 0:
		return "mount namespace (read-only bind mounts; the kernel has no Landlock, so writes are confined by remounting every other mount read-only)"
	default:
		return fmt.Sprintf("Landlock ABI %d (the write allow-list) + mount namespace (read-only islands, hidden paths, /proc/sys)", abi)
	}
}

// prepareFilesystem makes the re-execution carry the plan and enter a new
// mount namespace, keeping CAP_SYS_ADMIN (of its own user namespace) for
// the first process to mount with.
func (c *Cmd) prepareFilesystem() error {
	plan := c.Filesystem.Resolve(homeDir())
	b, err := json.Marshal(plan)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	c.Cmd.Env = append(c.Cmd.Env, fsEnv+"="+string(b))
	c.SysProcAttr.Cloneflags |= syscall.CLONE_NEWNS
	if len(c.SysProcAttr.AmbientCaps) > 0 {
		c.SysProcAttr.AmbientCaps = append(c.SysProcAttr.AmbientCaps, unix.CAP_SYS_ADMIN)
	}
	return nil
}

// homeDir is the invoking user's home directory, "" if unknown.
func homeDir() string {
	h, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(h) {
		return ""
	}
	return h
}

// confineFilesystem is the first process's filesystem step, before it
// hands over the listener: it reads the plan, makes the mounts private to
// the namespace, applies them, and restricts writes with Landlock
// (or, without Landlock, by remounting everything else read-only). It
// locks the goroutine to its thread for good: Landlock and the bounding
// set are per thread, and this thread executes the command.
//
// The command cannot undo the mounts: without capabilities (an ordinary
// user's command) it may not unmount, a nested user namespace of its own
// sees them locked, Landlock forbids mount(2) and umount(2) to the
// command, and a command that runs as uid 0 loses CAP_SYS_ADMIN from its
// bounding set ([dropMountCapability]).
func confineFilesystem() (byte, error) {
	runtime.LockOSThread()
	plan := &Plan{WriteAnywhere: true, Mounts: []Mount{{ReadOnly, "/proc/sys", "kernel"}}}
	if s, ok := os.LookupEnv(fsEnv); ok {
		os.Unsetenv(fsEnv)
		plan = &Plan{}
		if err := json.Unmarshal([]byte(s), plan); err != nil {
			return 0, fmt.Errorf("plan: %w", err)
		}
	}
	if err := unix.Mount("", "/", "", unix.MS_SLAVE|unix.MS_REC, ""); err != nil {
		return 0, fmt.Errorf("make / a slave mount: %w", err)
	}
	mounts, err := mountPoints()
	if err != nil {
		return 0, err
	}
	abi := 0
	if !plan.NoLandlock {
		abi = landlockABI()
	}
	conf := byte(confLandlock)
	if abi == 0 {
		conf = confMountOnly
		if !plan.WriteAnywhere {
			if err := readOnlyEverywhere(plan, mounts); err != nil {
				return 0, err
			}
		}
	}
	for _, m := range plan.Mounts {
		if err := apply(m, mounts); err != nil {
			return 0, err
		}
	}
	// The working directory was resolved before the mounts, on the mounts
	// beneath them: a relative path from it would go around every island
	// (`echo > .oc_chat/rules.json` from the workspace). Enter it again
	// through the new tree.
	if wd, err := os.Getwd(); err == nil {
		if err := unix.Chdir(wd); err != nil {
			return 0, fmt.Errorf("enter the working directory %s again: %w", wd, err)
		}
	}
	if abi > 0 {
		if err := restrictWrites(plan); err != nil {
			return 0, fmt.Errorf("landlock: %w", err)
		}
	}
	os.Setenv(MarkerEnv, confinementName(conf))
	return conf, nil
}

// apply performs one mount of the plan. A path that has gone since the
// plan was made is skipped, except a protected one: that is an error
// (the plan said it existed).
func apply(m Mount, mounts []string) error {
	switch m.Kind {
	case Pin:
		if err := unix.Mount(m.Path, m.Path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return skipGone(m, fmt.Errorf("pin %s: %w", m.Path, err))
		}
	case ReadOnly:
		if err := unix.Mount(m.Path, m.Path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return skipGone(m, fmt.Errorf("bind %s: %w", m.Path, err))
		}
		for _, p := range append([]string{m.Path}, beneath(mounts, m.Path)...) {
			if err := remount(p, true); err != nil && (p == m.Path || !ignorable(err)) {
				return fmt.Errorf("make %s read-only: %w", p, err)
			}
		}
	case HideDir:
		if err := unix.Mount("tmpfs", m.Path, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=000,size=4k"); err != nil {
			return skipGone(m, fmt.Errorf("hide %s: %w", m.Path, err))
		}
	case HideFile:
		if err := unix.Mount("/dev/null", m.Path, "", unix.MS_BIND, ""); err != nil {
			return skipGone(m, fmt.Errorf("hide %s: %w", m.Path, err))
		}
	}
	return nil
}

func skipGone(m Mount, err error) error {
	if errors.Is(err, unix.ENOENT) && m.Why != "policy" {
		return nil
	}
	return err
}

// ignorable: a mount beneath an island that this process cannot reach
// (a directory it may not search, a mount point hidden under another).
func ignorable(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES)
}

// remount sets or clears the read-only flag of the mount at path, keeping
// its other flags: in a user namespace, nosuid, nodev, noexec and the
// atime flags of a mount inherited from the host are locked, and a
// remount that drops them is refused.
func remount(path string, readOnly bool) error {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND)
	for _, f := range [][2]uintptr{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
		{unix.ST_SYNCHRONOUS, unix.MS_SYNCHRONOUS},
	} {
		if uintptr(st.Flags)&f[0] != 0 {
			flags |= f[1]
		}
	}
	if readOnly {
		flags |= unix.MS_RDONLY
	}
	return unix.Mount("", path, "", flags, "")
}

// readOnlyEverywhere is the write allow-list without Landlock: every
// mount is made read-only, then each writable root (and /dev/shm) is
// bound onto itself and made writable again.
func readOnlyEverywhere(plan *Plan, mounts []string) error {
	for _, p := range mounts {
		if err := remount(p, true); err != nil && !ignorable(err) {
			return fmt.Errorf("make %s read-only: %w", p, err)
		}
	}
	roots := slices.Clone(plan.Writable)
	for _, d := range plan.Devices {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			roots = append(roots, d)
		}
	}
	for _, w := range roots {
		if err := unix.Mount(w, w, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return fmt.Errorf("bind %s: %w", w, err)
		}
		if err := remount(w, false); err != nil {
			return fmt.Errorf("make %s writable: %w", w, err)
		}
	}
	return nil
}

// mountPoints lists the mount points of this namespace, in the order of
// /proc/self/mountinfo (parents before children).
func mountPoints() ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		out = append(out, unescapeMountinfo(fields[4]))
	}
	return out, sc.Err()
}

// unescapeMountinfo decodes the octal escapes (\040 for a space) of a
// mountinfo path.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// beneath returns the mount points strictly beneath dir.
func beneath(mounts []string, dir string) []string {
	var out []string
	for _, m := range mounts {
		if m != dir && within(m, dir) {
			out = append(out, m)
		}
	}
	return out
}

// dropMountCapability removes CAP_SYS_ADMIN from the bounding set of this
// thread when the command will run as uid 0 in its user namespace: with
// it, root could unmount the read-only islands where Landlock does not
// forbid it.
func dropMountCapability() error {
	if os.Getuid() != 0 {
		return nil
	}
	if err := unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_ADMIN, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("drop CAP_SYS_ADMIN from the bounding set: %w", err)
	}
	return nil
}
