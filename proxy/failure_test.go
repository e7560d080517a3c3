package proxy

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
)

// TestConnectionFailedSaysWhy: a tunnel to local mode's port where no
// server listens is 502 connection_failed saying "connection refused" and
// asking whether a server listens on that port.
func TestConnectionFailedSaysWhy(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Permissive})
	// Admitted, but nothing listens there, nor can while the test runs.
	port := int(testnet.RefusedPort(t))
	w.allowLocal(uint16(port))
	w.rule(rules.Allow, "127.0.0.1", port)
	target := "127.0.0.1:" + strconv.Itoa(port)

	resp, body := w.raw(connectHead(target))
	if resp.StatusCode != http.StatusBadGateway || resp.Header.Get(ReasonHeader) != string(refusal.ConnectionFailed) {
		t.Fatalf("got %d %s; want 502 connection_failed", resp.StatusCode, resp.Header.Get(ReasonHeader))
	}
	for _, want := range []string{"connection refused", "is a server listening on port " + strconv.Itoa(port) + "?"} {
		if !strings.Contains(body, want) {
			t.Errorf("body %q; want it to say %q", body, want)
		}
	}
}
