package mcpserver

//lint:file-ignore SA1019 MCP roots are deprecated by SEP-2577 (protocol 2026-07-28) but still functional, and DESIGN.md makes the client's first file:// root the workspace root.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// TestElicitation puts an uncovered loopback target to a scripted user on
// both protocols: the synchronous elicitation/create of 2025-11-25 and the
// input requests of the multi round-trip protocol.
func TestElicitation(t *testing.T) {
	srv, port := pageServer(t)
	target := fmt.Sprintf("127.0.0.1:%d", port)
	tests := []struct {
		name     string
		action   string
		decision string
		wantOK   bool
		// wantRules are the rules saved after the first call.
		wantRules []string
		// wantAskedAgain: the second call is put to the user again.
		wantAskedAgain bool
		wantDecidedBy  []string // audit decided_by of the two calls
	}{
		{name: "accept once", action: "accept", decision: "once", wantOK: true, wantAskedAgain: true, wantDecidedBy: []string{"once", "once"}},
		{name: "accept always", action: "accept", decision: "always", wantOK: true, wantRules: []string{"allow " + target}, wantDecidedBy: []string{"always", "rule"}},
		{name: "accept deny", action: "accept", decision: "deny", wantAskedAgain: true, wantDecidedBy: []string{"denied", "denied"}},
		{name: "decline", action: "decline", wantAskedAgain: true, wantDecidedBy: []string{"denied", "denied"}},
		{name: "cancel", action: "cancel", wantAskedAgain: true, wantDecidedBy: []string{"denied", "denied"}},
	}
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					ws := localWorkspace(t, port)
					user := &elicitor{action: tc.action, decision: tc.decision}
					cs := connect(t, &Options{Root: ws.Root}, clientSpec{protocol: proto, elicit: user})
					args := fmt.Sprintf(`{"url": %q}`, srv.URL+"/secret-path?token=abc")

					res := callFetch(t, cs, args)
					if res.IsError == tc.wantOK {
						t.Fatalf("first call: isError = %v; want %v. text:\n%s", res.IsError, !tc.wantOK, text(res))
					}
					if tc.wantOK && !strings.Contains(text(res), pageMarker) {
						t.Errorf("first call: text lacks the page:\n%s", text(res))
					}
					if !tc.wantOK {
						want := "not_approved: " + target + " was denied by the user\nhint: the user declined this fetch; do not retry it or ask for a rule unless the user brings it up"
						if got := text(res); got != want {
							t.Errorf("first call: text = %q; want %q", got, want)
						}
					}
					if diff := cmp.Diff(tc.wantRules, ruleTargets(t, ws)); diff != "" {
						t.Errorf("rules after the first call (-want +got):\n%s", diff)
					}
					asked := user.asked()
					if len(asked) != 1 {
						t.Fatalf("elicited %d times; want 1", len(asked))
					}
					wantMsg := fmt.Sprintf("fetch wants GET 127.0.0.1 (network %s).", target)
					if !strings.HasPrefix(asked[0], wantMsg) {
						t.Errorf("message = %q; want it to start with %q", asked[0], wantMsg)
					}
					for _, leak := range []string{"secret-path", "token", "abc"} {
						if strings.Contains(asked[0], leak) {
							t.Errorf("message %q shows %q of the request", asked[0], leak)
						}
					}

					res2 := callFetch(t, cs, args)
					if res2.IsError == tc.wantOK {
						t.Errorf("second call: isError = %v; want %v", res2.IsError, !tc.wantOK)
					}
					wantAsks := 1
					if tc.wantAskedAgain {
						wantAsks = 2
					}
					if got := len(user.asked()); got != wantAsks {
						t.Errorf("after the second call: elicited %d times; want %d", got, wantAsks)
					}
					var decidedBy []string
					for _, l := range auditLines(t, ws) {
						decidedBy = append(decidedBy, fmt.Sprint(l["decided_by"]))
					}
					if diff := cmp.Diff(tc.wantDecidedBy, decidedBy); diff != "" {
						t.Errorf("audit decided_by (-want +got):\n%s", diff)
					}
				})
			}
		})
	}
}

func TestElicitationUnsupported(t *testing.T) {
	srv, port := pageServer(t)
	target := fmt.Sprintf("127.0.0.1:%d", port)
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			ws := localWorkspace(t, port)
			cs := connect(t, &Options{Root: ws.Root}, clientSpec{protocol: proto})
			res := callFetch(t, cs, fmt.Sprintf(`{"url": %q}`, srv.URL))
			want := "not_approved: " + target + " is not covered by a saved rule and nobody could be asked\nhint: ask the user to run: ocfetch rules allow " + target
			if !res.IsError || text(res) != want {
				t.Errorf("isError %v, text %q; want isError and %q", res.IsError, text(res), want)
			}
			lines := auditLines(t, ws)
			if len(lines) != 1 || lines[0]["decided_by"] != "unanswered" || lines[0]["outcome"] != "not_approved" {
				t.Errorf("audit = %v; want one line decided_by unanswered, outcome not_approved", lines)
			}
		})
	}
}

// TestMultiRoundTripStateIsBound drives the multi round-trip protocol by
// hand: an approval answer is honoured only with the state the server
// issued, for the very arguments it was issued for.
func TestMultiRoundTripStateIsBound(t *testing.T) {
	srv, port := pageServer(t)
	ws := localWorkspace(t, port)
	ms, err := NewServer(&Options{Root: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := ms.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "manual", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: (&elicitor{action: "accept", decision: "once"}).handle,
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities:       &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })

	args := json.RawMessage(fmt.Sprintf(`{"url": %q}`, srv.URL+"/a"))
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if !first.NeedsInput() || first.InputRequests[inputApproval] == nil || first.RequestState == "" {
		t.Fatalf("first result: needsInput %v, inputRequests %v, state %q; want an approval request with state", first.NeedsInput(), first.InputRequests, first.RequestState)
	}
	accept := mcp.InputResponseMap{inputApproval: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}}

	rootsInstead := mcp.InputResponseMap{inputApproval: &mcp.ListRootsResult{Roots: []*mcp.Root{}}}

	// outcome: "ran", "asked" (the question again) or a final error text
	// prefix.
	tests := []struct {
		name      string
		args      json.RawMessage
		state     string
		responses mcp.InputResponseMap
		want      string
	}{
		{name: "no state", args: args, responses: accept, want: "asked"},
		{name: "forged state", args: args, state: "eyJ0YXJnZXQiOiIxMjcuMC4wLjE6MSJ9.AAAA", responses: accept, want: "asked"},
		{name: "tampered state", args: args, state: "x" + first.RequestState, responses: accept, want: "asked"},
		{name: "state of other arguments", args: json.RawMessage(fmt.Sprintf(`{"url": %q}`, srv.URL+"/b")), state: first.RequestState, responses: accept, want: "asked"},
		{name: "state without an answer", args: args, state: first.RequestState, want: "asked"},
		{name: "answered with something else", args: args, state: "fresh", responses: rootsInstead, want: "not_approved: "},
		{name: "the issued state", args: args, state: first.RequestState, responses: accept, want: "ran"},
		{name: "the issued state again", args: args, state: first.RequestState, responses: accept, want: "asked"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.state == "fresh" {
				again, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: args})
				if err != nil {
					t.Fatal(err)
				}
				tc.state = again.RequestState
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: tc.args, InputResponses: tc.responses, RequestState: tc.state})
			if err != nil {
				t.Fatal(err)
			}
			var got string
			switch {
			case res.NeedsInput():
				got = "asked"
			case !res.IsError:
				got = "ran"
			default:
				got = text(res)
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("outcome %q; want %q", got, tc.want)
			}
		})
	}
}

func TestAnswerOf(t *testing.T) {
	tests := []struct {
		name string
		res  *mcp.ElicitResult
		want broker.Answer
	}{
		{"nil", nil, broker.Unanswered},
		{"accept once", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}, broker.Once},
		{"accept always", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "always"}}, broker.Always},
		{"accept deny", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "deny"}}, broker.Deny},
		{"accept, other value", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "ALWAYS"}}, broker.Deny},
		{"accept, wrong type", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": true}}, broker.Deny},
		{"accept session", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "session"}}, broker.Session},
		{"accept, no content: accepted without a choice", &mcp.ElicitResult{Action: "accept"}, broker.NoChoice},
		{"accept, empty content", &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, broker.NoChoice},
		{"decline", &mcp.ElicitResult{Action: "decline", Content: map[string]any{"decision": "always"}}, broker.Deny},
		{"cancel", &mcp.ElicitResult{Action: "cancel"}, broker.Deny},
		{"unknown action", &mcp.ElicitResult{Action: "yes"}, broker.Deny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := answerOf(tc.res); got != tc.want {
				t.Errorf("answerOf = %v; want %v", got, tc.want)
			}
		})
	}
}

func TestApprovalMessage(t *testing.T) {
	ws := trustedWS(t, testws.Spec{})
	req := broker.ApprovalRequest{
		Tool:        "fetch",
		Summary:     "POST api.example.com",
		Requirement: capability.Network(capability.MustTarget("api.example.com", 8443)),
	}
	p := elicitParams(req, ws)
	want := "fetch wants POST api.example.com (network api.example.com:8443).\n" +
		"Allow it once, for this session, always (saves an allow rule for api.example.com:8443 in " + ws.RulesPath() + "), or deny?"
	if p.Message != want {
		t.Errorf("message = %q; want %q", p.Message, want)
	}
	type option struct {
		Const string `json:"const"`
		Title string `json:"title"`
	}
	var schema struct {
		Type       string `json:"type"`
		Required   []string
		Properties map[string]struct {
			Type      string   `json:"type"`
			OneOf     []option `json:"oneOf"`
			EnumNames []string `json:"enumNames"`
		} `json:"properties"`
	}
	remarshal(t, p.RequestedSchema, &schema)
	want1 := []option{{"once", "Allow once"}, {"session", "Allow for this session"}, {"always", "Always allow api.example.com:8443"}, {"deny", "Deny"}}
	d := schema.Properties["decision"]
	if schema.Type != "object" || !cmp.Equal(schema.Required, []string{"decision"}) || d.Type != "string" ||
		!cmp.Equal(d.OneOf, want1) || d.EnumNames != nil {
		t.Errorf("requested schema = %+v; want one required string decision, titled options (oneOf const/title) %v, no enumNames", schema, want1)
	}
}

// TestElicitationAcceptWithoutChoice: a client that accepts the question
// without a decision (asked twice on the synchronous protocol) gets a
// refusal that says so — not "nobody could be asked" — and nothing is
// fetched or saved.
func TestElicitationAcceptWithoutChoice(t *testing.T) {
	srv, port := pageServer(t)
	target := fmt.Sprintf("127.0.0.1:%d", port)
	ws := localWorkspace(t, port)
	user := &elicitor{action: "accept", noChoice: true}
	cs := connect(t, &Options{Root: ws.Root}, clientSpec{protocol: protoLegacy, elicit: user})
	res := callFetch(t, cs, fmt.Sprintf(`{"url": %q}`, srv.URL))
	want := "not_approved: " + target + " was not approved: the client accepted the question without choosing an answer\n" +
		"hint: the question reached the client but no answer was chosen; if you retry, ask the user to choose one (once, for this session, always or deny), or to run: ocfetch rules allow " + target
	if !res.IsError || text(res) != want {
		t.Errorf("isError %v, text %q; want isError and %q", res.IsError, text(res), want)
	}
	if n := len(user.asked()); n != 2 {
		t.Errorf("asked %d times; want 2 (an empty accept is asked once more)", n)
	}
	if got := ruleTargets(t, ws); len(got) != 0 {
		t.Errorf("rules saved: %v", got)
	}
	lines := auditLines(t, ws)
	if len(lines) != 1 || lines[0]["decided_by"] != "unanswered" || lines[0]["outcome"] != "not_approved" {
		t.Errorf("audit = %v; want one line decided_by unanswered, outcome not_approved", lines)
	}
}
