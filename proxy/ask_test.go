package proxy

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
)

// scriptedApprover answers from a fixed answer and counts the questions;
// it fails the test if two questions overlap.
type scriptedApprover struct {
	answer  broker.Answer
	asked   atomic.Int32
	inside  atomic.Int32
	overlap atomic.Bool
	mu      sync.Mutex
	reqs    []broker.ApprovalRequest
}

func (a *scriptedApprover) Approve(_ context.Context, req broker.ApprovalRequest) (broker.Answer, error) {
	if a.inside.Add(1) > 1 {
		a.overlap.Store(true)
	}
	defer a.inside.Add(-1)
	a.asked.Add(1)
	a.mu.Lock()
	a.reqs = append(a.reqs, req)
	a.mu.Unlock()
	return a.answer, nil
}

// TestProxyAsks: with Options.Ask, a target no rule covers is put to the
// approver, naming the command: once admits that request only, session
// every request of this server (asked once), always saves the rule, deny
// refuses; questions never overlap; and profile strict, managed_rules_only
// and allow_once false refuse without asking.
func TestProxyAsks(t *testing.T) {
	tests := []struct {
		name    string
		answer  broker.Answer
		profile risk.Profile
		managed string
		// want: status of each of the three requests, and how many
		// questions were asked.
		want      int
		questions int32
		by        audit.DecidedBy
	}{
		{"once asks every time", broker.Once, risk.Standard, "", http.StatusOK, 3, audit.ByOnce},
		{"session asks once", broker.Session, risk.Standard, "", http.StatusOK, 1, audit.BySession},
		{"always saves the rule", broker.Always, risk.Standard, "", http.StatusOK, 1, audit.ByAlways},
		{"deny", broker.Deny, risk.Standard, "", http.StatusForbidden, 3, audit.ByDenied},
		{"unanswered", broker.Unanswered, risk.Standard, "", http.StatusForbidden, 3, audit.ByUnanswered},
		{"strict never asks", broker.Once, risk.Strict, "", http.StatusForbidden, 0, audit.ByProfile},
		{"allow_once false never asks", broker.Once, risk.Standard, `{"allow_once": false}`, http.StatusForbidden, 0, audit.ByPolicy},
		{"managed_rules_only never asks", broker.Once, risk.Standard, `{"managed_rules_only": true}`, http.StatusForbidden, 0, audit.ByPolicy},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ap := &scriptedApprover{answer: tc.answer}
			var files *testlayers.Files
			var diagnostics testio.SyncBuffer
			w := newWorld(t, worldOpts{profile: tc.profile, tune: func(o *Options) {
				files = testlayers.New(t, o.Scope.Workspace)
				o.Scope.Layers = files.Layers
				o.Ask = &AskOptions{Approver: ap, Command: "curl (ocfetch run)"}
				o.Logger = diag.NewPlain(&diagnostics, 1)
			}})
			if tc.managed != "" {
				files.WriteManaged(t, tc.managed)
			}
			c := w.client()
			var wg sync.WaitGroup
			statuses := make([]int, 3)
			for i := range statuses {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resp, err := c.Get("http://" + publicHost + "/")
					if err != nil {
						t.Error(err)
						return
					}
					resp.Body.Close()
					statuses[i] = resp.StatusCode
				}()
			}
			wg.Wait()
			for i, st := range statuses {
				if st != tc.want {
					t.Errorf("request %d: status %d; want %d", i, st, tc.want)
				}
			}
			if got := ap.asked.Load(); got != tc.questions {
				t.Errorf("asked %d questions; want %d", got, tc.questions)
			}
			if ap.overlap.Load() {
				t.Error("two questions were asked at once")
			}
			for _, r := range ap.reqs {
				if r.Tool != "curl (ocfetch run)" || r.Summary != "HTTP "+publicHost+":80" {
					t.Errorf("question %+v; want it to name the command and HTTP %s:80", r, publicHost)
				}
			}
			es := w.waitAudit(3)
			var bys []string
			for _, e := range es {
				bys = append(bys, string(e.DecidedBy))
			}
			if !strings.Contains(strings.Join(bys, " "), string(tc.by)) {
				t.Errorf("audit decided_by %v; want %s among them", bys, tc.by)
			}
			set, err := rules.Load(w.ws)
			if err != nil {
				t.Fatal(err)
			}
			saved := set.Len() == 1 && set.Rules()[0].String() == "allow "+publicHost+":80"
			if saved != (tc.answer == broker.Always && tc.questions > 0) {
				t.Errorf("rules.json holds %v; want the rule saved only after always", set.Rules())
			}
			// A rule saved is an L1 line (diag: "a rule saved"), domain RULES.
			line := `level=L1 msg="rule saved" domain=RULES target=` + publicHost + `:80 decision=allow file=` + w.ws.RulesPath()
			if saved != strings.Contains(diagnostics.String(), line) {
				t.Errorf("diagnostics at -v:\n%s\nwant the line %q only when the rule is saved", diagnostics.String(), line)
			}
		})
	}
}
