package proxy

import (
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
)

// TestEveryMethodIsAudited: a forwarded request whose method is a valid
// HTTP token the audit log cannot carry (a '#', '&' or '%' in it, or
// longer than an audit summary) is still audited, as "OTHER <host>": no
// request reaches the upstream without its audit line.
func TestEveryMethodIsAudited(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Standard})
	w.rule(rules.Allow, publicHost, 80)
	tests := []struct {
		method      string
		wantSummary string
	}{
		{"PROPFIND", "PROPFIND " + publicHost},
		{"GET#", "OTHER " + publicHost},
		{"A&B", "OTHER " + publicHost},
		{"P%T", "OTHER " + publicHost},
		{"X|Y", "OTHER " + publicHost},
		{"M.SEARCH", "OTHER " + publicHost},
		{strings.Repeat("A", 300), "OTHER " + publicHost},
	}
	for i, tc := range tests {
		resp, body := w.raw(tc.method + " http://" + publicHost + "/ HTTP/1.1\r\nHost: " + publicHost + "\r\nConnection: close\r\n\r\n")
		if resp.StatusCode != 200 {
			t.Fatalf("%.20s: got %d %q; want 200 (forwarded)", tc.method, resp.StatusCode, body)
		}
		es := w.waitAudit(i + 1)
		if len(es) != i+1 {
			t.Fatalf("%.20s: the request was forwarded but the audit log has %d lines; want %d", tc.method, len(es), i+1)
		}
		if got := es[i].Summary; got != tc.wantSummary {
			t.Errorf("%.20s: audit summary %q; want %q", tc.method, got, tc.wantSummary)
		}
	}
}
