package audit_test

import (
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
)

// FuzzEveryNormalHostIsASummary is issue 11 item 6: every host that
// capability.NormalizeHost accepts makes a valid audit line, so that no
// call (the proxy's included) can go ahead without one. Before, a host
// with '&' or '=' passed the URL parser but not the line's validation.
func FuzzEveryNormalHostIsASummary(f *testing.F) {
	for _, s := range []string{"example.com", "a&b.example", "a=b.example", "x;touch$IFS.example", "[2606:4700::1111]", "127.0.0.1", "Bücher.example", "_srv.example"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		host, err := capability.NormalizeHost(raw)
		if err != nil {
			return
		}
		req := capability.Network(capability.MustTarget(host, 443))
		for _, summary := range []string{"GET " + host, "CONNECT " + host} {
			e := audit.Entry{
				Time: time.Unix(1, 0), ExecutionID: "id", Tool: "proxy", Summary: summary,
				Requirement: &req, Decision: audit.DecisionAllow, DecidedBy: audit.ByRule,
				Rule: "allow " + req.Target.String(), Outcome: audit.OutcomeOK,
			}
			if err := e.Validate(); err != nil {
				t.Fatalf("host %q (from %q) makes no valid audit line: %v", host, raw, err)
			}
		}
	})
}
