package sandbox

import (
	"errors"
	"os"
	"strings"
	"syscall"

	"github.com/ocfetch/ocfetch/refusal"
)

// stage names what failed in making the namespace.
type stage int

const (
	stageClone  stage = iota // clone(2) of the namespace's first process
	stageLo                  // raising lo inside
	stageListen              // listening on 127.0.0.1:PORT inside
	stageMount               // the filesystem confinement (fs_linux.go)
)

// sysctlFunc reads a file under /proc/sys ("kernel/unprivileged_userns_clone")
// and returns its trimmed content, or "" when it does not exist.
type sysctlFunc func(name string) string

func readSysctl(name string) string {
	b, err := os.ReadFile("/proc/sys/" + name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

const fallbackHint = "or run without the sandbox: ocfetch run --no-sandbox -- COMMAND (its network is then only advised to use the proxy)"

// diagnose names why the kernel refused the sandbox at stage with err, from
// the sysctls that explain it: unprivileged user namespaces switched off
// (Debian's kernel.unprivileged_userns_clone, user.max_user_namespaces),
// Ubuntu's AppArmor restriction (the namespace is made but has no
// capabilities, so raising lo fails with EPERM), or no CAP_SYS_ADMIN for
// root (an unprivileged container).
func diagnose(st stage, err error, root bool, sysctl sysctlFunc) *refusal.Error {
	var errno syscall.Errno
	errors.As(err, &errno)
	unavailable := func(msg, fix string) *refusal.Error {
		return refusal.New(refusal.SandboxUnavailable, msg).WithHint(fix + "; " + fallbackHint).Wrap(err)
	}
	switch st {
	case stageClone:
		if root {
			return unavailable("the kernel refused a new network namespace ("+errnoText(errno)+"): ocfetch runs as root without CAP_SYS_ADMIN, as in an unprivileged container",
				"run the container with CAP_SYS_ADMIN (docker run --cap-add SYS_ADMIN), or run ocfetch as an ordinary user where user namespaces are allowed")
		}
		if sysctl("kernel/unprivileged_userns_clone") == "0" {
			return unavailable("unprivileged user namespaces are switched off (kernel.unprivileged_userns_clone=0)",
				"enable them: sudo sysctl -w kernel.unprivileged_userns_clone=1")
		}
		if sysctl("user/max_user_namespaces") == "0" {
			return unavailable("user namespaces are switched off (user.max_user_namespaces=0)",
				"allow some: sudo sysctl -w user.max_user_namespaces=15000")
		}
		if errno == syscall.ENOSPC {
			return unavailable("the limit of user namespaces is reached (user.max_user_namespaces)",
				"raise it: sudo sysctl -w user.max_user_namespaces=15000")
		}
		return unavailable("the kernel refused a new user and network namespace ("+errnoText(errno)+"), perhaps a seccomp filter of a container",
			"allow unshare/clone of user namespaces in the container's security profile")
	case stageLo:
		if errno == syscall.EPERM && !root && sysctl("kernel/apparmor_restrict_unprivileged_userns") == "1" {
			return unavailable("AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1): the namespace is made without capabilities, so its loopback cannot be raised",
				"allow them: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or give the ocfetch binary an AppArmor profile with \"userns,\"")
		}
		return unavailable("the loopback interface of the new network namespace could not be raised ("+errnoText(errno)+")",
			"check that user namespaces grant CAP_NET_ADMIN on this system")
	case stageMount:
		return unavailable("the sandbox's filesystem confinement could not be set up ("+errnoText(errno)+"; the line above names the path)",
			"check that the path can be bind-mounted (a FUSE or network file system may refuse it), or leave it out of --allow-write/--deny-read")
	}
	return unavailable("the proxy's port could not be opened inside the network namespace ("+errnoText(errno)+")",
		"retry; if it persists, report it")
}

func errnoText(errno syscall.Errno) string {
	if errno == 0 {
		return "unknown error"
	}
	return errno.Error()
}
