package fetch

import (
	"context"
	"fmt"
	"github.com/ocfetch/ocfetch/capability"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/hostile"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/tool"
)

const page = `<!doctype html><html><head><title>Hello page</title></head><body>
<nav>menu</nav><main><h1>Hello</h1><p>The first paragraph of the page, long enough to be the main content of it.</p>
<p>A second paragraph, with a <a href="/next">link</a>.</p></main></body></html>`

// echo answers with what it received: method, selected headers and body.
func echo() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Server", "echo")
		w.Header().Set("X-Not-Summarised", "1")
		io.WriteString(w, "method="+r.Method+"\nhost="+r.Host+"\nua="+r.UserAgent()+
			"\naccept="+r.Header.Get("Accept")+"\nx-token="+r.Header.Get("X-Token")+
			"\ncontent-type="+r.Header.Get("Content-Type")+"\nbody="+string(body))
	})
}

func output(t *testing.T, res *tool.Result) Output {
	t.Helper()
	if res.IsError {
		t.Fatalf("error result %s: %s", res.Reason, res.Message)
	}
	out, ok := res.Structured.(Output)
	if !ok {
		t.Fatalf("Structured is %T; want Output", res.Structured)
	}
	return out
}

func wantError(t *testing.T, res *tool.Result, code refusal.Code) {
	t.Helper()
	if !res.IsError || res.Reason != code {
		t.Fatalf("result IsError=%v reason %q message %q; want error %q", res.IsError, res.Reason, res.Message, code)
	}
	// Only a refused off-target redirect describes the redirect response,
	// for the caller to follow in a new call.
	if res.Structured != nil && (code != refusal.RedirectOffTarget || res.RedirectTo == "") {
		t.Errorf("error result has Structured %v; want nil", res.Structured)
	}
	if res.RedirectTo != "" && code != refusal.RedirectOffTarget {
		t.Errorf("error result %s has RedirectTo; want it on redirect_off_target only", code)
	}
}

func TestRunLocalGET(t *testing.T) {
	h := newHarness(t, nil)
	base, _ := h.serve(hostile.Page("text/html; charset=utf-8", []byte(page)))
	res := call(context.Background(), h.f, `{"url": "`+base+`/index.html#frag"}`)
	out := output(t, res)
	if out.Status != 200 || out.URL != base+"/index.html" || out.Format != "markdown" || out.Bytes != int64(len(page)) {
		t.Errorf("status %d url %q format %q bytes %d; want 200 %q markdown %d", out.Status, out.URL, out.Format, out.Bytes, base+"/index.html", len(page))
	}
	if !strings.Contains(out.Content, "[link]("+base+"/next)") || strings.Contains(out.Content, "<p>") || out.Title != "Hello page" {
		t.Errorf("content %q title %q; want the main content as Markdown, links resolved against the final URL, and the title", out.Content, out.Title)
	}
	wantHeaders := map[string]string{"content-type": "text/html; charset=utf-8", "content-length": portString(uint16(len(page)))}
	if diff := cmp.Diff(wantHeaders, out.Headers); diff != "" {
		t.Errorf("header summary (-want +got):\n%s", diff)
	}
	if res.Status != 200 || res.Bytes != int64(len(page)) {
		t.Errorf("Result status %d bytes %d; want 200 %d", res.Status, res.Bytes, len(page))
	}
	if want := "HTTP 200 OK\nurl: " + base + "/index.html\ntitle: Hello page\ncontent-type: text/html; charset=utf-8\n"; !strings.HasPrefix(res.Content, want) {
		t.Errorf("Content starts %q; want %q", res.Content[:min(len(res.Content), 120)], want)
	}
	if !strings.Contains(res.Content, "\n\n"+out.Content) {
		t.Errorf("Content does not carry the page content after a blank line")
	}
}

func TestRunLocalRequestAsSent(t *testing.T) {
	h := newHarness(t, nil)
	base, port := h.serve(echo())
	tests := []struct {
		name, args string
		want       []string
	}{
		{"get defaults", `{"url": "` + base + `/", "format": "raw"}`,
			[]string{"method=GET", "host=127.0.0.1:" + portString(port), "ua=" + DefaultUserAgent, "accept=" + acceptHeader, "body="}},
		{"post body and headers", `{"url": "` + base + `/api", "method": "POST", "body": "a=1&b=2", "format": "raw", "headers": {"x-token": "t0k", "content-type": "application/x-www-form-urlencoded", "user-agent": "mine/1"}}`,
			[]string{"method=POST", "ua=mine/1", "x-token=t0k", "content-type=application/x-www-form-urlencoded", "body=a=1&b=2"}},
		{"localhost spelled differently", `{"url": "http://LOCALHOST.:` + portString(port) + `/", "format": "raw"}`,
			[]string{"host=localhost:" + portString(port)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := output(t, call(context.Background(), h.f, tc.args))
			for _, w := range tc.want {
				if !strings.Contains(out.Content, w+"\n") && !strings.HasSuffix(out.Content, w) {
					t.Errorf("server saw:\n%s\nwant a line %q", out.Content, w)
				}
			}
			if out.Headers["server"] != "echo" || out.Headers["x-not-summarised"] != "" {
				t.Errorf("header summary %v; want server and no unlisted header", out.Headers)
			}
		})
	}
}

// TestRunHTTPErrorIsDelivered: a 404 or 500 is a response, not an error.
func TestRunHTTPErrorIsDelivered(t *testing.T) {
	h := newHarness(t, nil)
	base, _ := h.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code := http.StatusNotFound
		if r.URL.Path == "/500" {
			code = http.StatusInternalServerError
		}
		http.Error(w, "nope", code)
	}))
	for _, tc := range []struct {
		path string
		want int
	}{{"/missing", 404}, {"/500", 500}} {
		out := output(t, call(context.Background(), h.f, `{"url": "`+base+tc.path+`"}`))
		if out.Status != tc.want || !strings.Contains(out.Content, "nope") {
			t.Errorf("%s: status %d content %q; want %d and the body", tc.path, out.Status, out.Content, tc.want)
		}
	}
}

func TestRunPagination(t *testing.T) {
	h := newHarness(t, nil)
	text := strings.Repeat("0123456789", 10) // 100 runes
	base, _ := h.serve(hostile.Page("text/plain; charset=utf-8", []byte(text)))
	tests := []struct {
		name                   string
		start, max             int
		want                   string
		truncated              bool
		next, remaining        int
		noteContains           string
		renderContainsHintNext bool
	}{
		{"first window", 0, 30, text[:30], true, 30, 70, "", true},
		{"middle window", 30, 30, text[30:60], true, 60, 40, "", true},
		{"last window", 90, 30, text[90:], false, 0, 0, "", false},
		{"past end", 200, 30, "", false, 0, 0, "past the end", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(context.Background(), h.f, argsJSON(t, map[string]any{"url": base + "/", "format": "text", "start_index": tc.start, "max_length": tc.max}))
			out := output(t, res)
			if out.Content != tc.want || out.Truncated != tc.truncated || out.NextStartIndex != tc.next || out.Remaining != tc.remaining {
				t.Errorf("content %q truncated %v next %d remaining %d; want %q %v %d %d",
					out.Content, out.Truncated, out.NextStartIndex, out.Remaining, tc.want, tc.truncated, tc.next, tc.remaining)
			}
			if tc.noteContains != "" && !strings.Contains(strings.Join(out.Notes, "|"), tc.noteContains) {
				t.Errorf("notes %q; want one containing %q", out.Notes, tc.noteContains)
			}
			if got := strings.Contains(res.Content, "start_index="+portString(uint16(tc.next))); got != tc.renderContainsHintNext {
				t.Errorf("rendered pagination hint present=%v; want %v:\n%s", got, tc.renderContainsHintNext, res.Content)
			}
		})
	}
}

// TestRunFailsClosedWithoutArtifact: InvokableRun never reparses the raw
// arguments; without the artifact bound for this execution nothing is sent.
func TestRunFailsClosedWithoutArtifact(t *testing.T) {
	h := newHarness(t, nil)
	rec := &hostile.Recorder{}
	base, _ := h.serve(rec)
	args := `{"url": "` + base + `/"}`
	id := uuid.New()
	_, art, err := h.f.PrepareCall(context.Background(), id, args)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ctx  context.Context
	}{
		{"nothing bound", context.Background()},
		{"other execution id", tool.WithArtifact(context.Background(), uuid.New(), art)},
		{"foreign artifact", tool.WithArtifact(context.Background(), id, struct{ URL string }{base})},
		{"nil artifact", tool.WithArtifact(context.Background(), id, (*prepared)(nil))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := h.f.InvokableRun(tc.ctx, args)
			if err != nil {
				t.Fatalf("InvokableRun returned a Go error %v; want an error result", err)
			}
			wantError(t, res, refusal.InternalError)
		})
	}
	if n := len(rec.Requests()); n != 0 {
		t.Errorf("server got %d requests; want 0", n)
	}
	res, _ := NewFetch(nil, nil).InvokableRun(tool.WithArtifact(context.Background(), id, art), args)
	wantError(t, res, refusal.InternalError)
}

// TestRunDialsOnlyTheAdmittedTarget: the run dials under the admission the
// runtime bound for the call's target and no other; without one (or with
// one for another target, or a local admission on another port) nothing
// is sent. The allowlist read after approval is the broker's
// (broker.TestApprovalDecidesAgain).
func TestRunDialsOnlyTheAdmittedTarget(t *testing.T) {
	h := newHarness(t, nil)
	rec := &hostile.Recorder{}
	base, port := h.serve(rec)
	args := `{"url": "` + base + `/"}`
	id := uuid.New()
	_, art, err := h.f.PrepareCall(context.Background(), id, args)
	if err != nil {
		t.Fatal(err)
	}
	bound := tool.WithArtifact(context.Background(), id, art)
	target := capability.MustTarget("127.0.0.1", port)
	for _, tc := range []struct {
		name     string
		admitted []tool.Admission
	}{
		{"no admission", nil},
		{"another target", []tool.Admission{{Target: capability.MustTarget("localhost", port), LoopbackPort: port}}},
		{"not local mode", []tool.Admission{{Target: target}}},
		{"another loopback port", []tool.Admission{{Target: target, LoopbackPort: port + 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := h.f.InvokableRun(tool.WithAdmissions(bound, tc.admitted, nil), args)
			wantError(t, res, refusal.InternalError)
		})
	}
	if n := len(rec.Requests()); n != 0 {
		t.Errorf("server got %d requests; want 0", n)
	}
}

func TestRunDoesNotMutateClient(t *testing.T) {
	h := newHarness(t, nil)
	base, _ := h.serve(hostile.RedirectTo("/final", http.StatusFound))
	_ = call(context.Background(), h.f, `{"url": "`+base+`/"}`)
	if h.client.CheckRedirect != nil || h.client.Jar != nil {
		t.Errorf("shared client was mutated: CheckRedirect set %v", h.client.CheckRedirect != nil)
	}
}

// TestRunClientTimeoutBounds: the call's own deadline (Options.Timeout,
// or the call's timeout) bounds it, and so does the injected client's
// Timeout where that is the shorter: run drops the client's Timeout only
// when the call's deadline comes first.
func TestRunClientTimeoutBounds(t *testing.T) {
	tests := []struct {
		name          string
		client, fetch time.Duration
	}{
		{"the client's Timeout is the shorter", 300 * time.Millisecond, 30 * time.Second},
		{"the call's timeout is the shorter", 30 * time.Second, 300 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.client = egress.NewClient(&egress.Options{Timeout: tc.client})
			t.Cleanup(h.client.CloseIdleConnections)
			h.f = newFetch(h.client, &Options{Timeout: tc.fetch}, h.ws, risk.Permissive)
			base, _ := h.serve(hostile.Trickle(time.Second))
			start := time.Now()
			res := call(context.Background(), h.f, `{"url": "`+base+`/", "format": "raw"}`)
			wantError(t, res, refusal.Timeout)
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Errorf("call took %v; the shorter bound (300ms) should have ended it", elapsed)
			}
			if h.client.Timeout != tc.client {
				t.Errorf("shared client's Timeout is now %v; want it untouched (%v)", h.client.Timeout, tc.client)
			}
		})
	}
}

// roundTripFunc is an http.RoundTripper from a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestRunLoopbackPortOnContext: the guard learns local mode's port from the
// request context: set to the admitted port for a local call, and cleared
// for a public call even when the caller's context carries one.
func TestRunLoopbackPortOnContext(t *testing.T) {
	var got []uint16
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		lt, _ := egress.Loopback(r.Context())
		got = append(got, lt.Port())
		return &http.Response{StatusCode: 204, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	})}
	f, _ := localFetch(t, client, 8080)
	callerCtx := egress.WithLoopback(context.Background(), capability.MustTarget("localhost", 8080))
	output(t, call(callerCtx, f, `{"url": "https://example.com/"}`))
	output(t, call(context.Background(), f, `{"url": "http://localhost:8080/"}`))
	if want := []uint16{0, 8080}; !cmp.Equal(got, want) {
		t.Errorf("loopback ports seen by the transport %v; want %v", got, want)
	}
}

// TestRunConcurrent: one Fetch serves concurrent calls (run with -race).
func TestRunConcurrent(t *testing.T) {
	h := newHarness(t, nil)
	base, _ := h.serve(echo())
	var wg sync.WaitGroup
	errs := make(chan string, 40)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5 {
				res := call(context.Background(), h.f, argsJSON(t, map[string]any{"url": base + "/", "method": "POST", "body": fmt.Sprint(g, "-", i), "format": "raw"}))
				if res.IsError || !strings.HasSuffix(res.Structured.(Output).Content, fmt.Sprint("body=", g, "-", i)) {
					errs <- fmt.Sprintf("call %d-%d: %s %s", g, i, res.Reason, res.Content)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestRunIgnoresRawArguments: InvokableRun executes the prepared artifact;
// the argsJSON it is handed is never read, so arguments swapped after
// approval change nothing.
func TestRunIgnoresRawArguments(t *testing.T) {
	h := newHarness(t, &Options{UserAgent: "ocfetch/test"})
	approved := &hostile.Recorder{}
	other := &hostile.Recorder{}
	approvedBase, _ := h.serve(approved)
	otherBase, _ := h.serve(other)
	id := uuid.New()
	req, art, err := h.f.PrepareCall(context.Background(), id, `{"url": "`+approvedBase+`/approved"}`)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := h.f.InvokableRun(bind(context.Background(), h.f, id, art, req), `{"url": "`+otherBase+`/swapped", "method": "POST", "body": "x"}`)
	output(t, res)
	got := approved.Requests()
	if len(got) != 1 || got[0].Method != "GET" || got[0].Path != "/approved" || len(other.Requests()) != 0 {
		t.Fatalf("approved server got %+v, other got %d requests; want one GET /approved and none", got, len(other.Requests()))
	}
	if ua := got[0].Header.Get("User-Agent"); ua != "ocfetch/test" {
		t.Errorf("User-Agent %q; want Options.UserAgent %q", ua, "ocfetch/test")
	}
}
