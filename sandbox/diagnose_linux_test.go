//go:build linux

package sandbox

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/ocfetch/ocfetch/refusal"
)

func TestDiagnose(t *testing.T) {
	tests := []struct {
		name     string
		st       stage
		errno    syscall.Errno
		root     bool
		sysctls  map[string]string
		wantMsg  string
		wantHint string
	}{
		{"Debian's switch off", stageClone, syscall.EPERM, false, map[string]string{"kernel/unprivileged_userns_clone": "0"},
			"kernel.unprivileged_userns_clone=0", "sudo sysctl -w kernel.unprivileged_userns_clone=1"},
		{"no user namespaces at all", stageClone, syscall.ENOSPC, false, map[string]string{"user/max_user_namespaces": "0"},
			"user.max_user_namespaces=0", "sudo sysctl -w user.max_user_namespaces=15000"},
		{"limit reached", stageClone, syscall.ENOSPC, false, map[string]string{"user/max_user_namespaces": "5"},
			"limit of user namespaces is reached", "raise it"},
		{"seccomp", stageClone, syscall.EPERM, false, nil,
			"perhaps a seccomp filter", "security profile"},
		{"root where the kernel refuses a user namespace", stageClone, syscall.EPERM, true, nil,
			"a network namespace alone would leave it host root", "--cap-add SYS_ADMIN"},
		{"root with user namespaces switched off", stageClone, syscall.ENOSPC, true, map[string]string{"user/max_user_namespaces": "0"},
			"user.max_user_namespaces=0", "sysctl -w user.max_user_namespaces=15000"},
		{"seccomp filter refused", stageSeccomp, syscall.EINVAL, false, nil,
			"could not be loaded (invalid argument)", "CONFIG_SECCOMP_FILTER"},
		{"descriptors", stageFDs, syscall.EPERM, false, nil,
			"could not be closed", "uname -r"},
		{"Ubuntu's AppArmor restriction", stageLo, syscall.EPERM, false, map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "1"},
			"kernel.apparmor_restrict_unprivileged_userns=1", "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"},
		{"lo refused otherwise", stageLo, syscall.EPERM, false, map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "0"},
			"could not be raised (operation not permitted)", "CAP_NET_ADMIN"},
		{"listen failed", stageListen, syscall.EADDRINUSE, false, nil,
			"could not be opened inside the network namespace", "retry"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := diagnose(tc.st, tc.errno, tc.root, func(n string) string { return tc.sysctls[n] })
			if r.Code != refusal.SandboxUnavailable {
				t.Errorf("code: got %s; want sandbox_unavailable", r.Code)
			}
			if !strings.Contains(r.Message, tc.wantMsg) {
				t.Errorf("message: got %q; want it to name %q", r.Message, tc.wantMsg)
			}
			if !strings.Contains(r.Hint, tc.wantHint) || !strings.Contains(r.Hint, "--no-sandbox") {
				t.Errorf("hint: got %q; want the fix %q and --no-sandbox", r.Hint, tc.wantHint)
			}
			if !errors.Is(r, tc.errno) {
				t.Errorf("the refusal does not wrap %v", tc.errno)
			}
		})
	}
}
