//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ocfetch/ocfetch/refusal"
)

// UnprivilegedID is the host uid and gid a command started by root runs
// as when neither sudo nor the workspace names a user (see [Command]).
// It is 2^31-2: below 2^31, because tools that keep ids in a signed
// 32-bit integer break above it; far above the ranges distributions and
// systemd hand out (system and regular users below 60000, systemd's
// dynamic users up to 65519, nobody 65534, subordinate id ranges from
// 100000 on, container ranges from 524288); and not nobody, whose
// processes (other services) a command running as nobody could signal or
// trace. No file on a host should belong to it, so a root-owned workspace
// is not writable by it: such a run is refused (see [Command]).
const UnprivilegedID = 1<<31 - 2

// identity is the host uid and gid the command runs as, and who chose
// them, for the messages.
type identity struct {
	uid, gid uint32
	who      string
	root     bool // ocfetch runs as root: the identity is a different one
}

// chooseIdentity returns the identity of a command started by a process
// with effective uid euid. An ordinary user's command keeps the user's
// uid and gid. Root's command runs as an ordinary user, so that it holds
// no power over the host (no root-owned file, no kernel setting, no
// other user's process): the user who ran sudo (SUDO_UID and SUDO_GID,
// both decimal and neither 0), else the owner of the workspace when that
// is not root (with the directory's group unless that is root's, else
// [UnprivilegedID]), else [UnprivilegedID] for both. Files the command
// writes in the workspace are then the user's, not root's.
func chooseIdentity(euid int, getenv func(string) string, workspace os.FileInfo) identity {
	if euid != 0 {
		return identity{uid: uint32(os.Getuid()), gid: uint32(os.Getgid()), who: "you"}
	}
	if uid, ok := parseID(getenv("SUDO_UID")); ok {
		if gid, ok := parseID(getenv("SUDO_GID")); ok {
			return identity{uid: uid, gid: gid, who: "the user who ran sudo (SUDO_UID)", root: true}
		}
	}
	if st, ok := workspace.Sys().(*syscall.Stat_t); ok && st.Uid != 0 {
		gid := st.Gid
		if gid == 0 {
			gid = UnprivilegedID
		}
		return identity{uid: st.Uid, gid: gid, who: "the workspace's owner", root: true}
	}
	return identity{uid: UnprivilegedID, gid: UnprivilegedID, who: "ocfetch's unprivileged uid", root: true}
}

// parseID accepts a uid or gid other than 0 and the invalid (uid_t)-1.
func parseID(s string) (uint32, bool) {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n == 0 || n == 1<<32-1 {
		return 0, false
	}
	return uint32(n), true
}

// prepareIdentity resolves the workspace (opts.Workspace or the current
// directory) and chooses the command's identity. As root it refuses,
// with sandbox_unavailable, a workspace that identity cannot enter, read
// and write: the command would fail on it in ways harder to read.
func prepareIdentity(workspace string) (identity, error) {
	if os.Geteuid() != 0 {
		return chooseIdentity(os.Geteuid(), os.Getenv, nil), nil
	}
	if workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return identity{}, fmt.Errorf("sandbox: current directory: %w", err)
		}
		workspace = wd
	}
	workspace, err := filepath.Abs(workspace)
	if err != nil {
		return identity{}, fmt.Errorf("sandbox: workspace: %w", err)
	}
	fi, err := os.Stat(workspace)
	if err != nil {
		return identity{}, fmt.Errorf("sandbox: workspace: %w", err)
	}
	id := chooseIdentity(os.Geteuid(), os.Getenv, fi)
	if !id.root {
		return id, nil
	}
	if err := accessAs(id, workspace); err != nil {
		return identity{}, refusal.Newf(refusal.SandboxUnavailable,
			"as root, ocfetch runs the command as an ordinary user, here %s (uid %d, gid %d), who cannot use the workspace %s (%v)",
			id.who, id.uid, id.gid, workspace, errnoOf(err)).
			WithHint("run ocfetch as the user who owns the workspace (or through sudo from that user's account), or give the workspace to an ordinary user (chown); " + fallbackHint).
			Wrap(err)
	}
	return id, nil
}

// errAccessUnknown: the check could not be made (a kernel before 5.8 has
// no faccessat2); the command then runs and meets the permissions itself.
var errAccessUnknown = errors.New("sandbox: access check not available")

// accessAs reports whether id may enter, read and write dir, as the
// kernel answers it for that uid and gid with no supplementary group (the
// command has none): a thread of its own takes id's file-system ids
// (setfsuid, which drops root's file capabilities) and asks
// faccessat2(AT_EACCESS), so ACLs, every parent directory and the
// security modules count as they will for the command. The thread is
// never given back to the Go runtime: it ends with its goroutine, its
// credentials with it.
func accessAs(id identity, dir string) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // not unlocked: the thread exits with the goroutine
		errc <- func() error {
			if err := unix.Setgroups(nil); err != nil {
				return errAccessUnknown
			}
			unix.Setfsgid(int(id.gid))
			unix.Setfsuid(int(id.uid))
			// setfsuid and setfsgid report no failure; asked with an
			// invalid id they return the one in force.
			gid, _ := unix.SetfsgidRetGid(-1)
			uid, _ := unix.SetfsuidRetUid(-1)
			if uid != int(id.uid) || gid != int(id.gid) {
				return errAccessUnknown
			}
			err := unix.Faccessat2(unix.AT_FDCWD, dir, unix.R_OK|unix.W_OK|unix.X_OK, unix.AT_EACCESS)
			if errors.Is(err, unix.ENOSYS) {
				return errAccessUnknown
			}
			return err
		}()
	}()
	err := <-errc
	if errors.Is(err, errAccessUnknown) {
		return nil
	}
	return err
}

// errnoOf names an error by its errno where it has one.
func errnoOf(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

// setIdentity maps id's uid and gid into the new user namespace (to
// themselves, nothing else mapped: host root and every other id appear
// as the overflow id inside and grant nothing) and, for root, makes the
// first process that identity with no supplementary group before it
// execs ocfetch (Go's child does setgroups, setgid, setuid, then raises
// the ambient capabilities). Root writes "allow" to setgroups for that;
// an ordinary user may not, and has no group to drop but its own.
func (id identity) setIdentity(attr *syscall.SysProcAttr) {
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: int(id.uid), HostID: int(id.uid), Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: int(id.gid), HostID: int(id.gid), Size: 1}}
	if id.root {
		attr.GidMappingsEnableSetgroups = true
		attr.Credential = &syscall.Credential{Uid: id.uid, Gid: id.gid}
	}
}
