package policy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/testsupport/testcpu"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/workspace"
)

// BenchmarkDecide measures one decision against rule sets of growing size,
// with rules.json parsed once (Decide's checked cache) so that what is measured is
// the decision itself: it must stay flat in the number of rules.
func BenchmarkDecide(b *testing.B) {
	for _, n := range []int{1, 100, 10000} {
		b.Run(fmt.Sprint("rules=", n), func(b *testing.B) {
			allow := make([]string, 0, n)
			for i := range n - 1 {
				allow = append(allow, fmt.Sprintf("h%d.example:443", i))
			}
			allow = append(allow, "target.example:443")
			ws := testws.New(b, testws.Spec{Allow: allow})
			set, err := rules.Load(ws)
			if err != nil {
				b.Fatal(err)
			}
			a := policy.Args{
				Origin:    origin(b, "https://target.example/"),
				Workspace: ws, Profile: risk.Standard,
				Layers:    testlayers.New(b, ws).Layers,
				LoadRules: func(workspace.Workspace) (*rules.Set, error) { return set, nil },
			}
			b.ReportAllocs()
			for b.Loop() {
				if d := policy.Decide(context.Background(), a); d.Result != policy.Allow {
					b.Fatal(d)
				}
			}
		})
	}
}

// BenchmarkDecideLocal includes the read of local_fetch.json on every call
// (seed 000: no caching).
func BenchmarkDecideLocal(b *testing.B) {
	ws := testws.New(b, testws.Spec{LocalPorts: []uint16{3000}, Allow: []string{"localhost:3000"}})
	a := policy.Args{Origin: origin(b, "http://localhost:3000/"), Workspace: ws, Profile: risk.Permissive, Layers: testlayers.New(b, ws).Layers}
	b.ReportAllocs()
	for b.Loop() {
		if d := policy.Decide(context.Background(), a); d.Result != policy.Allow {
			b.Fatal(strings.TrimSpace(d.String()))
		}
	}
}

// BenchmarkDecideLayers is one decision with every layer present: a
// managed policy with a rule, a user rules file with a rule, and the
// deciding allow in the workspace among rules=N rules, so that the trust
// store is read too. Every file is checked on every call; none changed
// since it was written (the files are left alone for
// securefile.RacyWindow first, as a user's are between an edit and the
// calls that follow), so none is read again (budget: 3 µs, flat in N).
func BenchmarkDecideLayers(b *testing.B) {
	for _, n := range []int{1, 100, 10000} {
		b.Run(fmt.Sprint("rules=", n), func(b *testing.B) {
			allow := make([]string, 0, n)
			for i := range n - 1 {
				allow = append(allow, fmt.Sprintf("h%d.example:443", i))
			}
			allow = append(allow, "target.example:443")
			ws := testws.New(b, testws.Spec{Allow: allow})
			l := testlayers.New(b, ws)
			l.WriteManaged(b, `{"rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "managed.example", "port": 443}, "decision": "deny"}]}`)
			l.AddUserRule(b, rules.Rule{Capability: "network", Target: rules.RuleTarget{Schema: "network.target.v1", Host: "user.example", Port: 443}, Decision: rules.Allow})
			time.Sleep(securefile.RacyWindow + 100*time.Millisecond)
			a := policy.Args{Origin: origin(b, "https://target.example/"), Workspace: ws, Profile: risk.Standard, Layers: l.Layers}
			// The first decision reads and parses every file (and places
			// the watches): what is measured is a decision when nothing
			// changed, the cost of every call after it.
			policy.Decide(context.Background(), a)
			b.ReportAllocs()
			start, checks := testcpu.Now(), securefile.Checks()
			for b.Loop() {
				if d := policy.Decide(context.Background(), a); d.Result != policy.Allow || d.Layer != policy.LayerWorkspace {
					b.Fatal(d)
				}
			}
			b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
			// The identity checks (stats) per decision: 0 where change
			// notification vouches for the files, ~11 where they are
			// checked with stats.
			b.ReportMetric(float64(securefile.Checks()-checks)/float64(b.N), "checks/op")
		})
	}
}
