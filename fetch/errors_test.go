package fetch

import (
	"context"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/refusal"
)

// TestConnectionFailedSaysWhy: connection_failed names the cause and hints
// at the fix — for local mode's port, whether a server listens there.
func TestConnectionFailedSaysWhy(t *testing.T) {
	h := newHarness(t, nil)
	port := testnet.RefusedPort(t) // nothing listens on port, nor can
	h.ports = append(h.ports, port)
	writeAllowlist(t, h.ws, h.ports...)

	ph := newPublicHarness(t, nil, false)
	for _, tc := range []struct {
		name, url string
		f         *Fetch
		msg, hint []string
	}{
		{"local port with no server", "http://127.0.0.1:" + portString(port) + "/app?token=x", h.f,
			[]string{"cannot connect to 127.0.0.1:" + portString(port), "connection refused"},
			[]string{"is a server listening on port " + portString(port) + "?"}},
		{"no such host", "https://nxdomain.test/secret", ph.f,
			[]string{"cannot resolve nxdomain.test", "no such host"},
			[]string{"check its spelling"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(context.Background(), tc.f, `{"url": "`+tc.url+`"}`)
			wantError(t, res, refusal.ConnectionFailed)
			for _, m := range tc.msg {
				if !strings.Contains(res.Message, m) {
					t.Errorf("message %q; want it to say %q", res.Message, m)
				}
			}
			for _, m := range tc.hint {
				if !strings.Contains(res.Hint, m) {
					t.Errorf("hint %q; want it to say %q", res.Hint, m)
				}
			}
			if strings.Contains(res.Message+res.Hint, "token") || strings.Contains(res.Message+res.Hint, "secret") {
				t.Errorf("message %q / hint %q carry the path or query", res.Message, res.Hint)
			}
		})
	}
}
