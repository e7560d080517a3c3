package proxy

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
)

// TestAuditUnavailableRefusesTunnel is issue 11 item 6 for the proxy: an
// audit log that is a directory, a symlink or in a read-only directory
// refuses every exchange with audit_unavailable naming the file, and
// nothing is dialled.
func TestAuditUnavailableRefusesTunnel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, w *world)
	}{
		{"a directory", func(t *testing.T, w *world) {
			if err := os.Mkdir(w.ws.AuditPath(), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"a symlink", func(t *testing.T, w *world) {
			other := filepath.Join(t.TempDir(), "other.jsonl")
			if err := os.WriteFile(other, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, w.ws.AuditPath()); err != nil {
				t.Skip("no symlinks:", err)
			}
		}},
		{"a read-only directory", func(t *testing.T, w *world) {
			if runtime.GOOS == "windows" || os.Geteuid() == 0 {
				t.Skip("permissions are not enforced here")
			}
			if err := os.Chmod(w.ws.Dir(), 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(w.ws.Dir(), 0o755) })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, worldOpts{})
			w.rule(rules.Allow, publicHost, 443)
			tc.setup(t, w)
			resp, body := w.raw(connectHead(publicHost + ":443"))
			if got := resp.Header.Get("X-Ocfetch-Reason"); got != string(refusal.AuditUnavailable) {
				t.Fatalf("status %d reason %q body %q; want audit_unavailable", resp.StatusCode, got, body)
			}
			if !strings.Contains(body, w.ws.AuditPath()) {
				t.Errorf("body %q does not name %s", body, w.ws.AuditPath())
			}
			if d := w.dials.List(); len(d) != 0 {
				t.Errorf("dialled %v; want nothing", d)
			}
		})
	}
}

// TestIPv6DenyHintNamesTheRule: the proxy's hint for a deny rule on an
// IPv6 host names that rule, bracketed and quoted, the same hint the
// broker gives (one decision step).
func TestIPv6DenyHintNamesTheRule(t *testing.T) {
	w := newWorld(t, worldOpts{})
	w.rule(rules.Deny, "2606:4700::1111", 443)
	resp, body := w.raw(connectHead("[2606:4700::1111]:443"))
	if got := resp.Header.Get("X-Ocfetch-Reason"); got != string(refusal.DeniedByRule) {
		t.Fatalf("reason %q body %q; want denied_by_rule", got, body)
	}
	if want := "ocfetch rules remove '[2606:4700::1111]:443'"; !strings.Contains(body, want) {
		t.Errorf("body %q does not hold the hint %q", body, want)
	}
	if d := w.dials.List(); len(d) != 0 {
		t.Errorf("dialled %v; want nothing", d)
	}
}
