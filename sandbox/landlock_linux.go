//go:build linux

package sandbox

import (
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// writeRights are the Landlock rights the sandbox handles: every way to
// create, change, rename or delete a file. Reading, executing and device
// ioctls are not handled, so they stay as the file's permissions say.
const writeRights = landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
	ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo |
	ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate)

// deviceRights are what a writable device file gets: opening it for
// writing (with O_TRUNC, as a shell's `> /dev/null` does).
const deviceRights = landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSTruncate)

// landlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// restrictWrites confines this thread (and so the command it executes)
// to writing under plan.Writable and the devices, best effort for the
// kernel's ABI (on ABI 1, files cannot move between directories). With
// WriteAnywhere the whole tree is writable, and the domain still forbids
// the command mount(2), umount(2) and ptrace of (or /proc/PID/root into)
// processes outside it, which keeps the read-only islands whole.
//
// The ruleset is applied to this thread alone, which must be locked and
// must execute the command: Landlock needs no_new_privs or CAP_SYS_ADMIN
// in the current user namespace, which the first process holds.
func restrictWrites(plan *Plan) error {
	var rules []landlock.Rule
	if plan.WriteAnywhere {
		rules = append(rules, landlock.PathAccess(writeRights, "/"))
	} else {
		rules = append(rules, landlock.PathAccess(writeRights, plan.Writable...).IgnoreIfMissing())
		var files, dirs []string
		for _, d := range plan.Devices {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				dirs = append(dirs, d)
			} else {
				files = append(files, d)
			}
		}
		rules = append(rules,
			landlock.PathAccess(deviceRights, files...).IgnoreIfMissing(),
			landlock.PathAccess(writeRights, dirs...).IgnoreIfMissing())
	}
	cfg := landlock.Config{HandledAccessFS: writeRights}.BestEffort()
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return err
	}
	if fd < 0 {
		return nil
	}
	defer unix.Close(fd)
	return ll.LandlockRestrictSelf(fd, flags)
}
