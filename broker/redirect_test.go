package broker_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/workspace"
)

// TestRedirectHopDecidedAgainThroughBroker: through the broker (one
// securefile.Call per tool call), a redirect hop is a new question to
// policy.Decide on the files as they are when the hop is about to be sent,
// not on the snapshot the call's first decision took: a port revoked, a
// deny rule added to the workspace, the user's or the managed layer, or
// the workspace's trust revoked while the chain runs stops the chain at
// the next hop, by name, before the hop is sent.
func TestRedirectHopDecidedAgainThroughBroker(t *testing.T) {
	type env struct {
		ws    workspace.Workspace
		files *testlayers.Files
		port  uint16
	}
	denyRule := func(port uint16) rules.Rule {
		return rules.Rule{Capability: capability.KindNetwork, Target: rules.RuleTarget{Schema: capability.TargetSchemaV1, Host: "127.0.0.1", Port: port}, Decision: rules.Deny}
	}
	tests := []struct {
		name      string
		meanwhile func(t *testing.T, e env)
		want      refusal.Code // "" : the hop is followed
		// approved: no allow rule is saved; the user approves the call
		// once when asked (the hop is then covered by that answer).
		approved bool
	}{
		{"nothing changed", func(*testing.T, env) {}, "", false},
		{"approved once, nothing changed", func(*testing.T, env) {}, "", true},
		// The call was admitted by the rule, not by the user: with the
		// rule gone the hop would have to be asked, and nobody asks.
		{"allow rule removed", func(t *testing.T, e env) { removeRule(t, e.ws, "127.0.0.1", e.port) }, refusal.NotApproved, false},
		{"approved once, port revoked", func(t *testing.T, e env) { testws.Write(t, e.ws, testws.Spec{LocalPorts: []uint16{}}) }, refusal.LocalPortNotAllowed, true},
		{"port revoked", func(t *testing.T, e env) { testws.Write(t, e.ws, testws.Spec{LocalPorts: []uint16{}}) }, refusal.LocalPortNotAllowed, false},
		{"workspace deny added", func(t *testing.T, e env) { addRule(t, e.ws, "127.0.0.1", e.port, rules.Deny) }, refusal.DeniedByRule, false},
		{"user deny added", func(t *testing.T, e env) { e.files.AddUserRule(t, denyRule(e.port)) }, refusal.DeniedByRule, false},
		{"managed deny added", func(t *testing.T, e env) {
			e.files.WriteManaged(t, fmt.Sprintf(`{"max_profile": "permissive", "rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "127.0.0.1", "port": %d}, "decision": "deny"}]}`, e.port))
		}, refusal.DeniedByRule, false},
		{"trust revoked", func(t *testing.T, e env) { e.files.Revoke(t, e.ws) }, refusal.WorkspaceUntrusted, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e env
			var hops atomic.Int32
			mux := http.NewServeMux()
			mux.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) {
				tc.meanwhile(t, e)
				http.Redirect(w, r, "/final", http.StatusFound)
			})
			mux.HandleFunc("/final", func(w http.ResponseWriter, r *http.Request) {
				hops.Add(1)
				fmt.Fprint(w, "arrived")
			})
			srv := httptest.NewServer(mux)
			defer srv.Close()
			e.port = netip.MustParseAddrPort(srv.Listener.Addr().String()).Port()
			e.ws = testws.New(t, testws.Spec{LocalPorts: []uint16{e.port}})
			e.files = testlayers.New(t, e.ws)
			approver := neverAsk(t)
			if tc.approved {
				approver = broker.ApproverFunc(func(context.Context, broker.ApprovalRequest) (broker.Answer, error) { return broker.Once, nil })
			} else {
				addRule(t, e.ws, "127.0.0.1", e.port, rules.Allow)
			}

			client := egress.NewClient(&egress.Options{Timeout: 5 * time.Second})
			defer client.CloseIdleConnections()
			f := fetch.NewFetch(client, &fetch.Options{})
			b := &broker.Broker{
				Scope:    &scope.Scope{Workspace: e.ws, Profile: risk.Permissive, ProfileFrom: scope.FromFlag, Layers: e.files.Layers},
				Audit:    audit.Open(e.ws),
				Approver: approver,
			}
			res := b.Call(context.Background(), f, fmt.Sprintf(`{"url": "http://127.0.0.1:%d/start"}`, e.port))
			if res.Reason != tc.want {
				t.Fatalf("reason %q (%s); want %q", res.Reason, res.Content, tc.want)
			}
			wantHops := int32(0)
			if tc.want == "" {
				wantHops = 1
			}
			if got := hops.Load(); got != wantHops {
				t.Errorf("the hop was sent %d times; want %d", got, wantHops)
			}
		})
	}
}

func removeRule(t *testing.T, ws workspace.Workspace, host string, port uint16) {
	t.Helper()
	if _, err := rules.Remove(context.Background(), ws, host, port); err != nil {
		t.Fatalf("rules.Remove(%s:%d): %v", host, port, err)
	}
}
