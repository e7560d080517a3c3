package search_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/search"
	"github.com/ocfetch/ocfetch/tool"
	"github.com/ocfetch/ocfetch/workspace"
)

const (
	braveKey  = "BSA-test-key-0123456789"
	tavilyKey = "tvly-test-key-0123456789"
)

// backend is a fake search API: it records what it was asked and answers
// with a handler chosen per test.
type backend struct {
	mu       sync.Mutex
	requests []*http.Request
	queries  []string
	bodies   []string
	answer   http.HandlerFunc
}

func (b *backend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body := new(strings.Builder)
	if r.Body != nil {
		buf := make([]byte, 4096)
		n, _ := r.Body.Read(buf)
		body.Write(buf[:n])
	}
	b.mu.Lock()
	b.requests = append(b.requests, r.Clone(context.Background()))
	b.queries = append(b.queries, r.URL.Query().Get("q"))
	b.bodies = append(b.bodies, body.String())
	b.mu.Unlock()
	b.answer(w, r)
}

func (b *backend) count() int { b.mu.Lock(); defer b.mu.Unlock(); return len(b.requests) }

func jsonAnswer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
}

// public is a "public" backend at search.example.com (a public-looking
// address, connected to a loopback TLS server by testnet), reached through
// the guarded client.
type public struct {
	be     *backend
	pub    *testnet.PublicTLS
	client *http.Client
}

func newPublic(t *testing.T, answer http.HandlerFunc) *public {
	t.Helper()
	p := &public{be: &backend{answer: answer}}
	p.pub = testnet.StartPublicTLS(t, p.be, nil)
	p.client = egress.NewClient(&egress.Options{
		Resolver: testnet.Resolver{"search.example.com": {netip.MustParseAddr("93.184.216.34")}},
		Dial:     p.pub.Dial,
		RootCAs:  p.pub.RootCAs,
		Timeout:  10 * time.Second,
	})
	t.Cleanup(func() { p.client.CloseIdleConnections(); p.pub.Server.Close() })
	return p
}

type env struct {
	ws     workspace.Workspace
	layers *testlayers.Files
}

func newEnv(t *testing.T, spec testws.Spec) env {
	t.Helper()
	ws := testws.New(t, spec)
	return env{ws: ws, layers: testlayers.New(t, ws)}
}

func (e env) broker(p risk.Profile, a broker.Approver) *broker.Broker {
	return &broker.Broker{Scope: &scope.Scope{Workspace: e.ws, Profile: p, Layers: e.layers.Layers}, Approver: a, Audit: audit.Open(e.ws)}
}

func mustBrave(t *testing.T) search.Backend {
	t.Helper()
	b, err := search.NewBrave("https://search.example.com/res/v1/web/search", braveKey)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func output(t *testing.T, res *tool.Result) search.Output {
	t.Helper()
	if res.IsError {
		t.Fatalf("result is an error: %s: %s", res.Reason, res.Message)
	}
	out, ok := res.Structured.(search.Output)
	if !ok {
		t.Fatalf("structured = %T; want search.Output", res.Structured)
	}
	return out
}

func TestBravePublicAnswer(t *testing.T) {
	p := newPublic(t, jsonAnswer(200, braveAnswer(3)))
	e := newEnv(t, testws.Spec{Allow: []string{"search.example.com:443"}})
	s := search.New(p.client, mustBrave(t), &search.Options{Timeout: 5 * time.Second})
	res := e.broker(risk.Standard, broker.NonInteractive()).Call(context.Background(), s, `{"query": "go generics", "count": 2}`)
	out := output(t, res)
	if out.Count != 2 || len(out.Results) != 2 || out.Results[0].Rank != 1 || out.Results[0].URL != "https://r0.example/page" {
		t.Errorf("output = %+v; want the first 2 of 3 results, ranked", out)
	}
	if !strings.Contains(res.Content, "1. Result 0\n   https://r0.example/page\n   snippet 0") {
		t.Errorf("content = %q; want numbered title, URL and snippet lines", res.Content)
	}
	if p.be.count() != 1 {
		t.Fatalf("backend got %d requests; want 1", p.be.count())
	}
	r := p.be.requests[0]
	if got := r.Header.Get("X-Subscription-Token"); got != braveKey {
		t.Errorf("X-Subscription-Token = %q; want the key", got)
	}
	if q := r.URL.Query(); q.Get("q") != "go generics" || q.Get("count") != "2" || r.URL.Path != "/res/v1/web/search" || r.Method != "GET" {
		t.Errorf("request %s %s; want GET /res/v1/web/search?q=go+generics&count=2", r.Method, r.URL)
	}
	if got := p.pub.Dials.List(); len(got) != 1 || got[0] != "93.184.216.34:443" {
		t.Errorf("dials = %v; want the one checked public address", got)
	}
	line := lastAudit(t, e.ws)
	if line.Tool != "search" || line.Summary != "GET search.example.com" || line.Outcome != "ok" || line.Status != 200 || line.DecidedBy != audit.ByRule {
		t.Errorf("audit line = %+v; want tool search, GET search.example.com, ok, 200, by rule", line)
	}
}

func TestTavilyPublicAnswer(t *testing.T) {
	p := newPublic(t, jsonAnswer(200, `{"query": "q", "answer": null, "images": [], "results": [{"title": "T", "url": "https://t.example/", "content": "C", "score": 0.5, "raw_content": null}], "response_time": 0.5}`))
	e := newEnv(t, testws.Spec{Allow: []string{"search.example.com:443"}})
	be, err := search.NewTavily("https://search.example.com/search", tavilyKey)
	if err != nil {
		t.Fatal(err)
	}
	res := e.broker(risk.Standard, broker.NonInteractive()).Call(context.Background(), search.New(p.client, be, nil), `{"query": "tavily q"}`)
	out := output(t, res)
	if len(out.Results) != 1 || out.Results[0].Title != "T" || out.Results[0].Snippet != "C" {
		t.Errorf("output = %+v", out)
	}
	r := p.be.requests[0]
	var body struct {
		Query      string `json:"query"`
		MaxResults int    `json:"max_results"`
	}
	if err := json.Unmarshal([]byte(p.be.bodies[0]), &body); err != nil || body.Query != "tavily q" || body.MaxResults != 10 {
		t.Errorf("body %q (%v); want query and max_results 10", p.be.bodies[0], err)
	}
	if r.Method != "POST" || r.Header.Get("Authorization") != "Bearer "+tavilyKey {
		t.Errorf("request %s with Authorization %q; want POST with the bearer key", r.Method, r.Header.Get("Authorization"))
	}
	if line := lastAudit(t, e.ws); line.Summary != "POST search.example.com" {
		t.Errorf("summary = %q; want POST search.example.com", line.Summary)
	}
}

func braveAnswer(n int) string {
	var rs []string
	for i := range n {
		rs = append(rs, fmt.Sprintf(`{"type": "search_result", "title": "Result %d", "url": "https://r%d.example/page", "description": "snippet %d"}`, i, i, i))
	}
	return `{"type": "search", "query": {"original": "x"}, "web": {"type": "search", "results": [` + strings.Join(rs, ",") + `]}}`
}

// TestBackendFailures: what a user sees when the backend fails. Nothing
// here is an empty success.
func TestBackendFailures(t *testing.T) {
	tests := []struct {
		name    string
		answer  http.HandlerFunc
		timeout time.Duration
		reason  refusal.Code
		message []string
		status  int
	}{
		{"429 with Retry-After seconds", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(429)
			fmt.Fprint(w, `{"type": "ErrorResponse", "error": {"code": "RATE_LIMITED", "detail": "echo: go generics"}}`)
		}, 0, refusal.SearchRateLimited, []string{"HTTP 429 Too Many Requests", "retry after 30s"}, 429},
		{"429 without Retry-After", jsonAnswer(429, `{}`), 0, refusal.SearchRateLimited, []string{"HTTP 429"}, 429},
		{"500", jsonAnswer(500, `{"error": "internal: go generics"}`), 0, refusal.SearchBackendFailed, []string{"HTTP 500 Internal Server Error", "brave at search.example.com:443"}, 500},
		{"401 bad key", jsonAnswer(401, `{}`), 0, refusal.SearchBackendFailed, []string{"HTTP 401 Unauthorized"}, 401},
		{"redirect not followed", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://search.example.com/elsewhere", http.StatusFound)
		}, 0, refusal.SearchBackendFailed, []string{"HTTP 302 Found"}, 302},
		{"malformed body", jsonAnswer(200, `<html><body>Service Unavailable</body></html>`), 0, refusal.SearchBackendFailed, []string{"not a valid brave answer"}, 200},
		{"wrong shape", jsonAnswer(200, `{"results": []}`), 0, refusal.SearchBackendFailed, []string{"not a valid brave answer"}, 200},
		{"answer too large", jsonAnswer(200, `{"type": "search", "pad": "`+strings.Repeat("x", 5000)+`"}`), 0, refusal.ResponseTooLarge, []string{"larger than 4096 bytes"}, 0},
		{"slow backend", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			// A backend that never answers: returning would send an empty
			// 200, which a client that has not yet given up (a late timer
			// on a loaded machine) would read as an answer.
			panic(http.ErrAbortHandler)
		}, 200 * time.Millisecond, refusal.Timeout, []string{"no complete answer within 200ms"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPublic(t, tc.answer)
			e := newEnv(t, testws.Spec{Allow: []string{"search.example.com:443"}})
			s := search.New(p.client, mustBrave(t), &search.Options{Timeout: tc.timeout, MaxResponseBytes: 4096})
			res := e.broker(risk.Standard, broker.NonInteractive()).Call(context.Background(), s, `{"query": "go generics"}`)
			if !res.IsError || res.Reason != tc.reason {
				t.Fatalf("result = %v %s: %s; want error %s", res.IsError, res.Reason, res.Message, tc.reason)
			}
			for _, m := range tc.message {
				if !strings.Contains(res.Message, m) {
					t.Errorf("message %q does not say %q", res.Message, m)
				}
			}
			if strings.Contains(res.Message+res.Hint+res.Content, "generics") {
				t.Errorf("the error shows the query: %q", res.Content)
			}
			if res.Hint == "" {
				t.Errorf("no hint")
			}
			line := lastAudit(t, e.ws)
			if line.Outcome != string(tc.reason) || line.Summary != "GET search.example.com" {
				t.Errorf("audit = %+v; want outcome %s", line, tc.reason)
			}
		})
	}
}

// TestNoRuleNothingSent: without a rule or an approval the backend's host
// is refused by the one decision step, as a fetch of it would be, and no
// request reaches the backend.
func TestNoRuleNothingSent(t *testing.T) {
	tests := []struct {
		name   string
		spec   testws.Spec
		prof   risk.Profile
		reason refusal.Code
		hint   string
	}{
		{"no rule, nobody to ask", testws.Spec{}, risk.Standard, refusal.NotApproved, "ocfetch rules allow search.example.com"},
		{"deny rule", testws.Spec{Deny: []string{"search.example.com:443"}, Allow: []string{"other.example.com:443"}}, risk.Standard, refusal.DeniedByRule, ""},
		{"strict without rule", testws.Spec{}, risk.Strict, refusal.NotApproved, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPublic(t, jsonAnswer(200, braveAnswer(1)))
			e := newEnv(t, tc.spec)
			res := e.broker(tc.prof, broker.NonInteractive()).Call(context.Background(), search.New(p.client, mustBrave(t), nil), `{"query": "secret project name"}`)
			if !res.IsError || res.Reason != tc.reason {
				t.Fatalf("result %s: %s; want %s", res.Reason, res.Message, tc.reason)
			}
			if tc.hint != "" && !strings.Contains(res.Hint, tc.hint) {
				t.Errorf("hint %q; want it to name %q", res.Hint, tc.hint)
			}
			if n := p.be.count(); n != 0 || len(p.pub.Dials.List()) != 0 {
				t.Errorf("backend got %d requests, %d dials; want none", n, len(p.pub.Dials.List()))
			}
		})
	}
}

// TestHTTPPublicBackendRefused: a public backend over http is refused by
// the same scheme rule as a fetch (https_required), before any packet.
func TestHTTPPublicBackendRefused(t *testing.T) {
	p := newPublic(t, jsonAnswer(200, `{"results": []}`))
	e := newEnv(t, testws.Spec{Allow: []string{"search.example.com:80"}})
	be, err := search.NewSearXNG("http://search.example.com")
	if err != nil {
		t.Fatal(err)
	}
	res := e.broker(risk.Standard, broker.ApproveOnce()).Call(context.Background(), search.New(p.client, be, nil), `{"query": "x"}`)
	if res.Reason != refusal.HTTPSRequired || p.be.count() != 0 {
		t.Errorf("reason %s, %d requests; want https_required and none", res.Reason, p.be.count())
	}
}

// loopbackSearXNG serves be on loopback for the test and returns its
// port, the SearXNG backend of it and a guarded client.
func loopbackSearXNG(t *testing.T, be *backend) (uint16, *search.SearXNG, *http.Client) {
	t.Helper()
	srv := httptest.NewServer(be)
	t.Cleanup(srv.Close)
	port := uint16(srv.Listener.Addr().(*net.TCPAddr).Port)
	client := egress.NewClient(&egress.Options{Timeout: 5 * time.Second})
	t.Cleanup(client.CloseIdleConnections)
	sx, err := search.NewSearXNG("http://127.0.0.1:" + strconv.Itoa(int(port)))
	if err != nil {
		t.Fatal(err)
	}
	return port, sx, client
}

// TestLoopbackSearXNG: a SearXNG on this machine is reached through local
// mode exactly as a loopback fetch: permissive profile, the port in
// local_fetch.json, and an approval; otherwise refused by name.
func TestLoopbackSearXNG(t *testing.T) {
	be := &backend{answer: jsonAnswer(200, `{"query": "q", "number_of_results": 1, "results": [{"url": "https://go.dev/", "title": "Go", "content": "The Go language", "engine": "x"}]}`)}
	port, sx, client := loopbackSearXNG(t, be)
	tests := []struct {
		name   string
		spec   testws.Spec
		prof   risk.Profile
		reason refusal.Code
	}{
		{"local mode", testws.Spec{Profile: "permissive", LocalPorts: []uint16{port}}, risk.Permissive, ""},
		{"not permissive", testws.Spec{LocalPorts: []uint16{port}}, risk.Standard, refusal.LocalProfileNotPermissive},
		{"port not allowed", testws.Spec{Profile: "permissive", LocalPorts: []uint16{port + 1}}, risk.Permissive, refusal.LocalPortNotAllowed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := be.count()
			e := newEnv(t, tc.spec)
			s := search.New(client, sx, nil)
			res := e.broker(tc.prof, broker.ApproveOnce()).Call(context.Background(), s, `{"query": "golang"}`)
			if tc.reason != "" {
				if res.Reason != tc.reason || be.count() != before {
					t.Errorf("reason %s (%s), requests %d; want %s and none sent", res.Reason, res.Message, be.count()-before, tc.reason)
				}
				return
			}
			out := output(t, res)
			if len(out.Results) != 1 || out.Results[0].Title != "Go" || out.Backend != "searxng" {
				t.Errorf("output %+v", out)
			}
			be.mu.Lock()
			q := be.requests[len(be.requests)-1].URL.Query()
			be.mu.Unlock()
			if q.Get("q") != "golang" || q.Get("format") != "json" {
				t.Errorf("query %v; want q and format=json", q)
			}
		})
	}
}

// TestAuditHoldsNoQueryNoKey is the property: for random queries, the
// audit log (and the result's text outside the results) never holds the
// query or the key, whatever the backend answers.
func TestAuditHoldsNoQueryNoKey(t *testing.T) {
	answers := []http.HandlerFunc{jsonAnswer(200, braveAnswer(2)), jsonAnswer(500, `{}`), jsonAnswer(429, `{}`), jsonAnswer(200, `nope`)}
	var i atomic.Int64
	p := newPublic(t, func(w http.ResponseWriter, r *http.Request) { answers[int(i.Add(1))%len(answers)](w, r) })
	e := newEnv(t, testws.Spec{Allow: []string{"search.example.com:443"}})
	s := search.New(p.client, mustBrave(t), nil)
	b := e.broker(risk.Standard, broker.NonInteractive())
	rng := rand.New(rand.NewPCG(24, 1))
	var queries []string
	for n := 0; n < 40; n++ {
		q := randomQuery(rng)
		queries = append(queries, q)
		args, _ := json.Marshal(map[string]string{"query": q})
		res := b.Call(context.Background(), s, string(args))
		if res.IsError && strings.Contains(res.Message+res.Hint, q) {
			t.Errorf("error message holds the query %q", q)
		}
	}
	log, err := os.ReadFile(e.ws.AuditPath())
	if err != nil {
		t.Fatal(err)
	}
	text := string(log)
	if n := strings.Count(text, "\n"); n != len(queries) {
		t.Fatalf("%d audit lines; want %d", n, len(queries))
	}
	for _, q := range queries {
		for _, form := range []string{q, url.QueryEscape(q), strings.ReplaceAll(url.QueryEscape(q), "+", "%20")} {
			if strings.Contains(text, form) {
				t.Errorf("audit log holds the query %q (as %q)", q, form)
			}
		}
	}
	if strings.Contains(text, braveKey) {
		t.Errorf("audit log holds the key")
	}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		var e audit.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil || e.Summary != "GET search.example.com" {
			t.Errorf("line %q: summary %q; want GET search.example.com", line, e.Summary)
		}
	}
}

// randomQuery is 4 to 12 runes from a mix of ASCII words and other
// scripts, always including a distinctive token so a leak cannot hide in
// a common substring.
func randomQuery(r *rand.Rand) string {
	alphabet := []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.:/?&=%+#@\"'éüßжπ漢字")
	n := 4 + r.IntN(9)
	q := make([]rune, 0, n+6)
	q = append(q, []rune(fmt.Sprintf("q%04d", r.IntN(10000)))...)
	for range n {
		q = append(q, alphabet[r.IntN(len(alphabet))])
	}
	return strings.TrimSpace(string(q))
}

func lastAudit(t *testing.T, ws workspace.Workspace) audit.Entry {
	t.Helper()
	es, err := audit.Read(ws, 1)
	if err != nil || len(es) != 1 {
		t.Fatalf("audit.Read: %v, %d entries", err, len(es))
	}
	return es[0]
}

func TestArguments(t *testing.T) {
	s := search.New(http.DefaultClient, mustBrave(t), nil)
	tests := []struct {
		args string
		ok   bool
	}{
		{`{"query": "x"}`, true},
		{`{"query": "x", "count": 20}`, true},
		{`{"query": "x", "count": null}`, true},
		{`{}`, false},
		{`{"query": ""}`, false},
		{`{"query": "   "}`, false},
		{`{"query": "a\nb"}`, false},
		{`{"query": 5}`, false},
		{`{"query": "x", "count": 0}`, false},
		{`{"query": "x", "count": 21}`, false},
		{`{"query": "x", "count": 2.5}`, false},
		{`{"query": "x", "count": "3"}`, false},
		{`{"query": "x", "query": "y"}`, false},
		{`{"query": "x", "url": "https://e.com"}`, false},
		{`{"query": "` + strings.Repeat("ü", 401) + `"}`, false},
		{`["x"]`, false},
		{`{"query": "x"} {}`, false},
	}
	for _, tc := range tests {
		req, _, err := s.PrepareCall(context.Background(), [16]byte{1}, tc.args)
		if tc.ok {
			if err != nil || len(req.Requirements) != 1 || req.Requirements[0].Target.Host() != "search.example.com" || req.Requirements[0].Target.Port() != 443 {
				t.Errorf("PrepareCall(%s) = %+v, %v; want the backend's network requirement", tc.args, req, err)
			}
			continue
		}
		if refusal.CodeOf(err) != refusal.InvalidArguments {
			t.Errorf("PrepareCall(%s) err = %v; want invalid_arguments", tc.args, err)
		} else if r, _ := refusal.As(err); strings.Contains(r.Message, "https://e.com") {
			t.Errorf("message quotes a value: %s", r.Message)
		}
	}
}

func TestNoBackendConfigured(t *testing.T) {
	s := search.New(http.DefaultClient, nil, nil)
	if _, _, err := s.PrepareCall(context.Background(), [16]byte{1}, `{"query": "x"}`); refusal.CodeOf(err) != refusal.SearchNotConfigured {
		t.Errorf("err = %v; want search_not_configured", err)
	}
	if got := s.AuditSummary(`{"query": "x"}`); strings.Contains(got, "x") && got != "SEARCH <no backend>" {
		t.Errorf("summary %q", got)
	}
}

func TestRunWithoutArtifactFailsClosed(t *testing.T) {
	p := newPublic(t, jsonAnswer(200, braveAnswer(1)))
	s := search.New(p.client, mustBrave(t), nil)
	res, err := s.InvokableRun(context.Background(), `{"query": "x"}`)
	if err != nil || !res.IsError || res.Reason != refusal.InternalError || p.be.count() != 0 {
		t.Errorf("res %+v err %v, %d requests; want internal_error and nothing sent", res, err, p.be.count())
	}
}

// TestNameIsInfoName: the name the broker audits (tool.Named) is the one
// Info gives a model.
func TestNameIsInfoName(t *testing.T) {
	s := search.New(nil, nil, nil)
	info, err := s.Info(context.Background())
	if err != nil || info.Name != s.Name() || tool.NameOf(context.Background(), s) != search.Name {
		t.Errorf("Info().Name = %q (%v), Name() = %q; want both %q", info.Name, err, s.Name(), search.Name)
	}
}

// TestPreparedSummaryIsAuditSummary: the prepared call carries the audit
// summary (tool.Request.Summary), the one AuditSummary gives, so the
// broker need not ask again.
func TestPreparedSummaryIsAuditSummary(t *testing.T) {
	be, err := search.NewTavily("https://search.example.com/search", "tvly-key-123")
	if err != nil {
		t.Fatal(err)
	}
	s := search.New(http.DefaultClient, be, nil)
	req, _, err := s.PrepareCall(context.Background(), [16]byte{1}, `{"query": "secret words"}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "POST search.example.com"; req.Summary != want || s.AuditSummary(`{"query": "secret words"}`) != want {
		t.Errorf("Request.Summary = %q, AuditSummary = %q; want both %q", req.Summary, s.AuditSummary(""), want)
	}
}

// TestBackendOfAnotherPackage: a Backend implemented outside the package
// (here one hiding a SearXNG behind the interface) is asked through the
// interface alone — NewRequest, then Parse — and its call gives what the
// package's own backend's does.
func TestBackendOfAnotherPackage(t *testing.T) {
	be := &backend{answer: jsonAnswer(200, `{"results": [{"url": " https://go.dev/ ", "title": "Go \u202e", "content": "The Go language"}, {"url": "ftp://x/", "title": "dropped"}, {"url": "https://pkg.go.dev/", "title": ""}]}`)}
	port, sx, client := loopbackSearXNG(t, be)
	e := newEnv(t, testws.Spec{Profile: "permissive", LocalPorts: []uint16{port}})
	var results []*tool.Result
	for _, b := range []search.Backend{sx, struct{ search.Backend }{sx}} {
		res := e.broker(risk.Permissive, broker.ApproveOnce()).Call(context.Background(), search.New(client, b, nil), `{"query": "golang", "count": 2}`)
		if res.IsError {
			t.Fatalf("%T: %s", b, res.Message)
		}
		results = append(results, res)
	}
	if d := cmp.Diff(output(t, results[0]), output(t, results[1])); d != "" {
		t.Errorf("output (-own +another package's):\n%s", d)
	}
	if results[0].Content != results[1].Content {
		t.Errorf("content %q; another package's backend gave %q", results[0].Content, results[1].Content)
	}
	if out := output(t, results[0]); out.Count != 2 || out.Dropped != 1 || out.Results[0].URL != "https://go.dev/" {
		t.Errorf("output %+v; want 2 results, 1 dropped", out)
	}
	if want := "2 results.\n1 more result was left out: its URL is not an http or https URL.\n"; !strings.Contains(results[0].Content, want) {
		t.Errorf("content %q; want it to say %q", results[0].Content, want)
	}
}

// TestAllResultsDropped: an answer whose every result has a URL the tool
// cannot use says so in the text, not only "no results.".
func TestAllResultsDropped(t *testing.T) {
	be := &backend{answer: jsonAnswer(200, `{"results": [{"url": "ftp://x/", "title": "a"}, {"url": "javascript:alert(1)", "title": "b"}, {"title": "c"}]}`)}
	port, sx, client := loopbackSearXNG(t, be)
	e := newEnv(t, testws.Spec{Profile: "permissive", LocalPorts: []uint16{port}})
	res := e.broker(risk.Permissive, broker.ApproveOnce()).Call(context.Background(), search.New(client, sx, nil), `{"query": "golang"}`)
	if res.IsError {
		t.Fatalf("error result %s: %s", res.Reason, res.Message)
	}
	out := output(t, res)
	if out.Count != 0 || out.Dropped != 3 {
		t.Errorf("output %+v; want 0 results, 3 dropped", out)
	}
	if want := "no results.\n3 more results were left out: their URLs are not http or https URLs.\n"; !strings.Contains(res.Content, want) {
		t.Errorf("content %q; want it to say %q", res.Content, want)
	}
}

// TestUnansweredEngines: SearXNG's unresponsive_engines (engines that
// timed out, were rate-limited or met a CAPTCHA) are counted and said,
// so that "no results." is not read as a search that found nothing; the
// list is never required, and anything but an array there is ignored.
func TestUnansweredEngines(t *testing.T) {
	const one = `{"url": "https://go.dev/", "title": "Go"}`
	for _, tc := range []struct {
		name, answer      string
		count, unanswered int
		want              string // in the text; "" for no line about engines
	}{
		{"none answered", `{"results": [], "unresponsive_engines": [["google", "CAPTCHA"], ["bing", "timeout"]]}`, 0, 2,
			"no results.\n2 of the backend's engines did not answer (a timeout, a rate limit or a CAPTCHA): the results may be incomplete"},
		{"some answered", `{"results": [` + one + `], "unresponsive_engines": [["brave", "too many requests"]]}`, 1, 1,
			"1 result.\n1 of the backend's engines did not answer"},
		{"every engine answered", `{"results": [` + one + `], "unresponsive_engines": []}`, 1, 0, ""},
		{"no list", `{"results": [` + one + `]}`, 1, 0, ""},
		{"not an array", `{"results": [` + one + `], "unresponsive_engines": "google"}`, 1, 0, ""},
		{"null", `{"results": [], "unresponsive_engines": null}`, 0, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			be := &backend{answer: jsonAnswer(200, tc.answer)}
			port, sx, client := loopbackSearXNG(t, be)
			e := newEnv(t, testws.Spec{Profile: "permissive", LocalPorts: []uint16{port}})
			res := e.broker(risk.Permissive, broker.ApproveOnce()).Call(context.Background(), search.New(client, sx, nil), `{"query": "golang"}`)
			if res.IsError {
				t.Fatalf("error result %s: %s", res.Reason, res.Message)
			}
			out := output(t, res)
			if out.Count != tc.count || out.Unanswered != tc.unanswered {
				t.Errorf("count %d, unanswered %d; want %d, %d", out.Count, out.Unanswered, tc.count, tc.unanswered)
			}
			said := strings.Contains(res.Content, "engines did not answer")
			switch {
			case tc.want == "" && said:
				t.Errorf("content %q speaks of engines that did not answer; want no such line", res.Content)
			case tc.want != "" && !strings.Contains(res.Content, tc.want):
				t.Errorf("content %q; want it to say %q", res.Content, tc.want)
			}
			if strings.Contains(res.Content, "CAPTCHA\"") || strings.Contains(res.Content, "google") {
				t.Errorf("content %q quotes the backend's engine list; want a count only", res.Content)
			}
		})
	}
}

// TestUnknownFieldNamed: an unknown field of search is named, quoted and
// shortened, as fetch names one, so a model sees which field to drop; its
// value is never quoted.
func TestUnknownFieldNamed(t *testing.T) {
	s := search.New(http.DefaultClient, mustBrave(t), nil)
	for args, want := range map[string]string{
		`{"query": "x", "url": "https://e.com"}`: `unknown field "url"; the fields are query and count`,
		`{"query": "x", "q\nx": 1}`:              `unknown field "q?x"; the fields are query and count`,
	} {
		_, _, err := s.PrepareCall(context.Background(), [16]byte{1}, args)
		if r, ok := refusal.As(err); !ok || r.Code != refusal.InvalidArguments || r.Message != want {
			t.Errorf("PrepareCall(%s) = %v; want invalid_arguments: %s", args, err, want)
		}
	}
}
