package proxy

import (
	"os"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
)

// TestAuditUnavailableRefusesTunnel is issue 11 item 6 for the proxy: an
// audit log that is a directory refuses every exchange with
// audit_unavailable naming the file, and nothing is dialled.
func TestAuditUnavailableRefusesTunnel(t *testing.T) {
	w := newWorld(t, worldOpts{})
	w.rule(rules.Allow, publicHost, 443)
	if err := os.Mkdir(w.ws.AuditPath(), 0o755); err != nil {
		t.Fatal(err)
	}
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
