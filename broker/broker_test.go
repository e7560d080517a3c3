package broker_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/tool"
	"github.com/ocfetch/ocfetch/workspace"
)

// fakeTool needs network access to the "target" of its arguments and
// records whether it ran. {"refuse": true} makes PrepareCall refuse.
type fakeTool struct {
	ran int
}

type fakeArgs struct {
	Target string `json:"target"`
	Refuse bool   `json:"refuse"`
}

type fakeArtifact struct {
	id     uuid.UUID
	target capability.Target
}

func (f *fakeTool) Info(context.Context) (*tool.Info, error) {
	return &tool.Info{Name: "fake", InputSchema: json.RawMessage(`{"type":"object"}`)}, nil
}

func (f *fakeTool) PrepareCall(_ context.Context, id uuid.UUID, argsJSON string) (tool.Request, tool.PreparedArtifact, error) {
	var a fakeArgs
	if err := json.Unmarshal([]byte(argsJSON), &a); err != nil {
		return tool.Request{}, nil, refusal.New(refusal.InvalidArguments, "arguments are not JSON")
	}
	if a.Refuse {
		return tool.Request{}, nil, refusal.New(refusal.HTTPSRequired, "scheme http is not allowed")
	}
	t, err := capability.ParseTarget(a.Target, 443)
	if err != nil {
		return tool.Request{}, nil, refusal.New(refusal.InvalidHost, "bad target")
	}
	req := tool.Request{ExecutionID: id, Tool: "fake", Requirements: []capability.Requirement{capability.Network(t)}}
	return req, fakeArtifact{id: id, target: t}, nil
}

func (f *fakeTool) InvokableRun(ctx context.Context, _ string) (*tool.Result, error) {
	art, id, ok := tool.ArtifactFrom(ctx)
	if !ok || art.(fakeArtifact).id != id {
		return tool.ErrorResult(refusal.New(refusal.InternalError, "no prepared artifact bound")), nil
	}
	f.ran++
	return &tool.Result{Content: "hello", Status: 200, Bytes: 5}, nil
}

func (f *fakeTool) AuditSummary(argsJSON string) string {
	var a fakeArgs
	if json.Unmarshal([]byte(argsJSON), &a) != nil {
		return "FAKE <unparseable>"
	}
	t, err := capability.ParseTarget(a.Target, 443)
	if err != nil {
		return "FAKE <invalid host>"
	}
	return "FAKE " + t.Host()
}

func addRule(t *testing.T, ws workspace.Workspace, host string, port uint16, d rules.Decision) {
	t.Helper()
	r := rules.Rule{Capability: capability.KindNetwork, Target: rules.RuleTarget{Schema: capability.TargetSchemaV1, Host: host, Port: port}, Decision: d}
	if err := rules.Add(context.Background(), ws, r); err != nil {
		t.Fatalf("rules.Add(%s:%d %s): %v", host, port, d, err)
	}
}

// neverAsk fails the test if the broker consults the approver.
func neverAsk(t *testing.T) broker.Approver {
	return broker.ApproverFunc(func(context.Context, broker.ApprovalRequest) (broker.Answer, error) {
		t.Error("approver asked; want no question")
		return broker.Deny, nil
	})
}

func answer(a broker.Answer, asked *[]broker.ApprovalRequest) broker.Approver {
	return broker.ApproverFunc(func(_ context.Context, req broker.ApprovalRequest) (broker.Answer, error) {
		*asked = append(*asked, req)
		return a, nil
	})
}

func lastAudit(t *testing.T, ws workspace.Workspace) audit.Entry {
	t.Helper()
	entries, err := audit.Read(ws, 1)
	if err != nil || len(entries) != 1 {
		t.Fatalf("audit.Read = %v, %v; want one entry", entries, err)
	}
	return entries[0]
}

func TestCallDecisions(t *testing.T) {
	tests := []struct {
		name        string
		profile     risk.Profile
		rules       func(t *testing.T, ws workspace.Workspace)
		answer      broker.Answer // used when the approver may be asked
		mayAsk      bool
		args        string
		wantReason  refusal.Code
		wantRan     bool
		wantBy      audit.DecidedBy
		wantRule    string
		wantOutcome string
		wantText    string // in the result's content
	}{
		{
			name:  "allow rule runs",
			rules: func(t *testing.T, ws workspace.Workspace) { addRule(t, ws, "example.com", 443, rules.Allow) },
			args:  `{"target":"example.com"}`, wantRan: true, wantBy: "rule", wantRule: "allow example.com:443", wantOutcome: "ok",
		},
		{
			name:  "IPv6 rule is reported bracketed",
			rules: func(t *testing.T, ws workspace.Workspace) { addRule(t, ws, "2606:4700::1111", 8443, rules.Allow) },
			args:  `{"target":"[2606:4700::1111]:8443"}`, wantRan: true, wantBy: "rule", wantRule: "allow [2606:4700::1111]:8443", wantOutcome: "ok",
		},
		{
			name: "deny wildcard wins over exact allow",
			rules: func(t *testing.T, ws workspace.Workspace) {
				addRule(t, ws, "api.example.com", 443, rules.Allow)
				addRule(t, ws, "*.example.com", 443, rules.Deny)
			},
			args: `{"target":"api.example.com"}`, wantReason: refusal.DeniedByRule, wantBy: "rule", wantRule: "deny *.example.com:443", wantOutcome: "denied_by_rule",
		},
		{
			name:  "rule on another port does not cover",
			rules: func(t *testing.T, ws workspace.Workspace) { addRule(t, ws, "example.com", 8443, rules.Allow) },
			args:  `{"target":"example.com"}`, mayAsk: true, answer: broker.Unanswered,
			wantReason: refusal.NotApproved, wantBy: "unanswered", wantOutcome: "not_approved",
		},
		{
			name: "once runs without saving", mayAsk: true, answer: broker.Once,
			args: `{"target":"example.com"}`, wantRan: true, wantBy: "once", wantOutcome: "ok",
		},
		{
			name: "user denies", mayAsk: true, answer: broker.Deny,
			args: `{"target":"example.com"}`, wantReason: refusal.NotApproved, wantBy: "denied", wantOutcome: "not_approved",
		},
		{
			name: "accepted without a choice", mayAsk: true, answer: broker.NoChoice,
			args: `{"target":"example.com"}`, wantReason: refusal.NotApproved, wantBy: "unanswered", wantOutcome: "not_approved",
			wantText: "example.com:443 was not approved: the client accepted the question without choosing an answer",
		},
		{
			name: "strict never asks", profile: risk.Strict,
			args: `{"target":"example.com"}`, wantReason: refusal.NotApproved, wantBy: "profile", wantOutcome: "not_approved",
		},
		{
			name: "strict runs on a saved rule", profile: risk.Strict,
			rules: func(t *testing.T, ws workspace.Workspace) { addRule(t, ws, "*.example.com", 443, rules.Allow) },
			args:  `{"target":"www.example.com"}`, wantRan: true, wantBy: "rule", wantRule: "allow *.example.com:443", wantOutcome: "ok",
		},
		{
			name: "prepare refusal is audited and asks nobody",
			args: `{"refuse":true}`, wantReason: refusal.HTTPSRequired, wantBy: "policy", wantOutcome: "https_required",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := testws.Bare(t)
			if tc.rules != nil {
				tc.rules(t, ws)
			}
			var asked []broker.ApprovalRequest
			approver := neverAsk(t)
			if tc.mayAsk {
				approver = answer(tc.answer, &asked)
			}
			profile := tc.profile
			if profile == "" {
				profile = risk.Standard
			}
			ft := &fakeTool{}
			b := &broker.Broker{Scope: &scope.Scope{Workspace: ws, Profile: profile, Layers: testlayers.New(t, ws).Layers}, Approver: approver, Audit: audit.Open(ws)}
			res := b.Call(context.Background(), ft, tc.args)

			if got, want := res.Reason, tc.wantReason; got != want {
				t.Errorf("reason = %q; want %q (content %q)", got, want, res.Content)
			}
			if !strings.Contains(res.Content, tc.wantText) {
				t.Errorf("content %q lacks %q", res.Content, tc.wantText)
			}
			if got := res.IsError; got != (tc.wantReason != "") {
				t.Errorf("IsError = %v; want %v", got, tc.wantReason != "")
			}
			if got := ft.ran == 1; got != tc.wantRan {
				t.Errorf("tool ran = %v; want %v", got, tc.wantRan)
			}
			if tc.mayAsk && len(asked) != 1 {
				t.Errorf("approver asked %d times; want 1", len(asked))
			}
			e := lastAudit(t, ws)
			if e.DecidedBy != tc.wantBy || e.Rule != tc.wantRule || e.Outcome != tc.wantOutcome || e.Tool != "fake" {
				t.Errorf("audit = by %q rule %q outcome %q tool %q; want by %q rule %q outcome %q tool fake",
					e.DecidedBy, e.Rule, e.Outcome, e.Tool, tc.wantBy, tc.wantRule, tc.wantOutcome)
			}
			if tc.wantRan && (e.Status != 200 || e.Bytes != 5 || e.Decision != "allow") {
				t.Errorf("audit status %d bytes %d decision %q; want 200, 5, allow", e.Status, e.Bytes, e.Decision)
			}
		})
	}
}

func TestAlwaysSavesRule(t *testing.T) {
	ws := testws.Bare(t)
	var asked []broker.ApprovalRequest
	b := &broker.Broker{Scope: &scope.Scope{Workspace: ws, Profile: risk.Standard, Layers: testlayers.New(t, ws).Layers}, Approver: answer(broker.Always, &asked), Audit: audit.Open(ws)}
	ft := &fakeTool{}
	if res := b.Call(context.Background(), ft, `{"target":"Bücher.example"}`); res.IsError {
		t.Fatalf("first call: %s", res.Content)
	}
	want := broker.ApprovalRequest{Tool: "fake", Summary: "FAKE xn--bcher-kva.example",
		Requirement: capability.Network(capability.MustTarget("xn--bcher-kva.example", 443)), Profile: risk.Standard}
	if diff := cmp.Diff([]broker.ApprovalRequest{want}, asked); diff != "" {
		t.Errorf("approval requests (-want +got):\n%s", diff)
	}
	if e := lastAudit(t, ws); e.DecidedBy != "always" {
		t.Errorf("audit decided_by = %q; want always", e.DecidedBy)
	}

	// The saved rule now covers the target without asking.
	b.Approver = neverAsk(t)
	if res := b.Call(context.Background(), ft, `{"target":"xn--bcher-kva.example"}`); res.IsError {
		t.Fatalf("second call: %s", res.Content)
	}
	if e := lastAudit(t, ws); e.DecidedBy != "rule" || e.Rule != "allow xn--bcher-kva.example:443" {
		t.Errorf("audit = by %q rule %q; want rule / allow xn--bcher-kva.example:443", e.DecidedBy, e.Rule)
	}
	if ft.ran != 2 {
		t.Errorf("tool ran %d times; want 2", ft.ran)
	}
}

func TestUnansweredNamesTheRuleCommand(t *testing.T) {
	ws := testws.Bare(t)
	b := &broker.Broker{Scope: &scope.Scope{Workspace: ws, Profile: risk.Standard, Layers: testlayers.New(t, ws).Layers}}
	res := b.Call(context.Background(), &fakeTool{}, `{"target":"[2001:4860::8888]:8443"}`)
	if res.Reason != refusal.NotApproved {
		t.Fatalf("reason = %q; want not_approved", res.Reason)
	}
	if want := "ocfetch rules allow '[2001:4860::8888]:8443'"; !strings.Contains(res.Hint, want) {
		t.Errorf("hint = %q; want it to contain %q", res.Hint, want)
	}
	if _, err := os.Stat(ws.RulesPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused call wrote %s (stat err %v); want nothing written", ws.RulesPath(), err)
	}
}

func TestCorruptRulesFailClosed(t *testing.T) {
	ws := testws.Bare(t)
	if err := ws.EnsureDir(); err != nil {
		t.Fatal(err)
	}
	corrupt := []byte(`{"schema_version": 1, "rules": [`)
	if err := os.WriteFile(ws.RulesPath(), corrupt, 0o644); err != nil {
		t.Fatal(err)
	}
	ft := &fakeTool{}
	b := &broker.Broker{Scope: &scope.Scope{Workspace: ws, Profile: risk.Standard, Layers: testlayers.New(t, ws).Layers}, Approver: neverAsk(t), Audit: audit.Open(ws)}
	res := b.Call(context.Background(), ft, `{"target":"example.com"}`)
	if res.Reason != refusal.RulesInvalid || ft.ran != 0 {
		t.Fatalf("reason = %q, ran %d; want rules_invalid, 0", res.Reason, ft.ran)
	}
	if !strings.Contains(res.Message, ws.RulesPath()) {
		t.Errorf("message %q does not name %s", res.Message, ws.RulesPath())
	}
	got, _ := os.ReadFile(ws.RulesPath())
	if string(got) != string(corrupt) {
		t.Errorf("rules file changed to %q; want it untouched", got)
	}
}

func TestTerminalApprover(t *testing.T) {
	req := broker.ApprovalRequest{Tool: "fetch", Summary: "GET example.com",
		Requirement: capability.Network(capability.MustTarget("example.com", 443))}
	tests := []struct {
		input string
		want  broker.Answer
		out   []string // also in the prompt's output
	}{
		{"o\n", broker.Once, nil}, {"once\n", broker.Once, nil}, {"y\n", broker.Once, nil},
		{"A\n", broker.Always, []string{"saving the rule allow example.com:443 in /ws/.oc_chat/rules.json"}},
		{"always\n", broker.Always, nil},
		{"d\n", broker.Deny, nil}, {"no\n", broker.Deny, nil}, {"", broker.Deny, nil},
		{"\n", broker.Deny, nil}, // Enter takes the default the prompt shows
		// A typo is asked again, not silently denied.
		{"maybe\no\n", broker.Once, []string{"please answer o (once), a (always) or d (deny); Enter denies"}},
		{"x\ny\n", broker.Once, nil},
		{"x\nx\nx\no\n", broker.Deny, []string{"no valid answer; denied"}}, // three tries, then deny
		{"maybe", broker.Deny, nil},                                        // end of input after a typo
	}
	for _, tc := range tests {
		var out strings.Builder
		ta := &broker.TerminalApprover{In: strings.NewReader(tc.input), Out: &out, RulesFile: "/ws/.oc_chat/rules.json"}
		got, err := ta.Approve(context.Background(), req)
		if err != nil || got != tc.want {
			t.Errorf("input %q: got %v, %v; want %v", tc.input, got, err, tc.want)
		}
		for _, want := range append([]string{"GET example.com", "example.com:443 in /ws/.oc_chat/rules.json", "[default: deny]"}, tc.out...) {
			if !strings.Contains(out.String(), want) {
				t.Errorf("input %q: prompt %q does not say %q", tc.input, out.String(), want)
			}
		}
	}
	// OfferSession adds the session answer; without it "s" is a typo.
	for _, tc := range []struct {
		input   string
		session bool
		want    broker.Answer
		out     string
	}{
		{"s\n", true, broker.Session, "for this [s]ession"},
		{"session\n", true, broker.Session, "o (once), s (session), a (always)"},
		{"s\nd\n", false, broker.Deny, "please answer o (once), a (always) or d (deny)"},
	} {
		var out strings.Builder
		ta := &broker.TerminalApprover{In: strings.NewReader(tc.input), Out: &out, OfferSession: tc.session}
		got, err := ta.Approve(context.Background(), req)
		if err != nil || got != tc.want {
			t.Errorf("session %v, input %q: got %v, %v; want %v", tc.session, tc.input, got, err, tc.want)
		}
		if tc.input == "session\n" {
			// the help line shows on a typo only; ask once more to see it
			out.Reset()
			ta := &broker.TerminalApprover{In: strings.NewReader("x\ns\n"), Out: &out, OfferSession: true}
			ta.Approve(context.Background(), req)
		}
		if !strings.Contains(out.String(), tc.out) {
			t.Errorf("session %v, input %q: prompt %q does not say %q", tc.session, tc.input, out.String(), tc.out)
		}
	}

	// NewTerminalApprover is the same without a file name.
	var out strings.Builder
	got, _ := broker.NewTerminalApprover(strings.NewReader("a\n"), &out).Approve(context.Background(), req)
	if got != broker.Always || strings.Contains(out.String(), " in ") {
		t.Errorf("NewTerminalApprover: got %v, prompt %q; want always, no file named", got, out.String())
	}
}

// admissionTool records the admission bound to its run for its target.
type admissionTool struct {
	fakeTool
	got []tool.Admission
}

func (a *admissionTool) InvokableRun(ctx context.Context, args string) (*tool.Result, error) {
	art, _, _ := tool.ArtifactFrom(ctx)
	if fa, ok := art.(fakeArtifact); ok {
		if ad, _, ok := tool.AdmissionFor(ctx, fa.target); ok {
			a.got = append(a.got, ad)
		}
	}
	return a.fakeTool.InvokableRun(ctx, args)
}

// TestApprovalDecidesAgain: the files are read again once the user has
// answered, before anything is sent (seed 000, "read on every call"): a
// port revoked or a deny rule added while the user was being asked refuses
// the call, and the run dials under the admission of that second decision
// (local mode's loopback port included).
func TestApprovalDecidesAgain(t *testing.T) {
	for _, tc := range []struct {
		name       string
		target     string
		meanwhile  func(t *testing.T, ws workspace.Workspace)
		wantReason refusal.Code
		want       tool.Admission
	}{
		{"public, nothing changed", "example.com", func(*testing.T, workspace.Workspace) {}, "",
			tool.Admission{Target: capability.MustTarget("example.com", 443)}},
		{"local, nothing changed", "localhost:3000", func(*testing.T, workspace.Workspace) {}, "",
			tool.Admission{Target: capability.MustTarget("localhost", 3000), LoopbackPort: 3000}},
		{"local, port revoked while asking", "localhost:3000",
			func(t *testing.T, ws workspace.Workspace) { testws.Write(t, ws, testws.Spec{LocalPorts: []uint16{}}) },
			refusal.LocalPortNotAllowed, tool.Admission{}},
		{"public, deny rule added while asking", "example.com",
			func(t *testing.T, ws workspace.Workspace) { addRule(t, ws, "example.com", 443, rules.Deny) },
			refusal.DeniedByRule, tool.Admission{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := testws.New(t, testws.Spec{LocalPorts: []uint16{3000}})
			at := &admissionTool{}
			asked := 0
			b := &broker.Broker{Scope: &scope.Scope{Workspace: ws, Profile: risk.Permissive, Layers: testlayers.New(t, ws).Layers, ProfileFrom: scope.FromFlag},
				Audit: audit.Open(ws), Approver: broker.ApproverFunc(func(context.Context, broker.ApprovalRequest) (broker.Answer, error) {
					asked++
					tc.meanwhile(t, ws)
					return broker.Once, nil
				})}
			res := b.Call(context.Background(), at, `{"target":"`+tc.target+`"}`)
			if asked != 1 {
				t.Fatalf("approver asked %d times; want 1", asked)
			}
			if res.Reason != tc.wantReason {
				t.Fatalf("reason %q (%s); want %q", res.Reason, res.Content, tc.wantReason)
			}
			if tc.wantReason != "" {
				if at.ran != 0 {
					t.Errorf("the tool ran after a refusal")
				}
				return
			}
			if len(at.got) != 1 || at.got[0] != tc.want {
				t.Errorf("admissions bound %+v; want [%+v]", at.got, tc.want)
			}
		})
	}
}
