package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/workspace"
)

// rawHTTP speaks streamable HTTP by hand, to play clients that vanish.
type rawHTTP struct {
	t      testing.TB
	url    string
	client *http.Client
}

func (c *rawHTTP) post(ctx context.Context, sid, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testToken)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", protoLegacy)
	}
	return c.client.Do(req)
}

// open initializes a session and returns its id.
func (c *rawHTTP) open() string {
	c.t.Helper()
	resp, err := c.post(context.Background(), "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+protoLegacy+`","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if err != nil {
		c.t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		c.t.Fatalf("initialize: %s, session %q", resp.Status, sid)
	}
	resp, err = c.post(context.Background(), sid, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	if err != nil {
		c.t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return sid
}

func (c *rawHTTP) delete(sid string) {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, c.url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", protoLegacy)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	resp.Body.Close()
}

// heapAndGoroutines returns the live heap after a GC and the goroutines.
func heapAndGoroutines() (uint64, int) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, runtime.NumGoroutine()
}

// TestAbandonedSessionsAreReclaimed: sessions whose clients never send
// DELETE are closed after the idle timeout, and their goroutines and memory
// freed. Soak: 2,000 sessions (200 with -short), bounded by a 60 s deadline.
func TestAbandonedSessionsAreReclaimed(t *testing.T) {
	n := 2000
	// The timeout must outlast opening the sessions, or none is open
	// when the test looks.
	timeout := 500 * time.Millisecond
	switch {
	case raceEnabled:
		n, timeout = 100, 5*time.Second
	case testing.Short():
		n = 200
	}
	ws := localWorkspace(t, 1)
	addr := serveHTTPForTest(t, &Options{Root: ws.Root, SessionTimeout: timeout, MaxSessions: n + 10})
	c := &rawHTTP{t: t, url: "http://" + addr + "/", client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}}
	defer c.client.CloseIdleConnections()
	c.open() // warm up: the first session's one-off allocations are not a leak
	time.Sleep(2 * timeout)
	c.client.CloseIdleConnections()
	heap0, g0 := heapAndGoroutines()

	sids := make([]string, n)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				sids[i] = c.open()
			}
		})
	}
	wg.Wait()
	heap1, g1 := heapAndGoroutines()
	t.Logf("%d sessions open: heap %d → %d KiB, goroutines %d → %d", n, heap0>>10, heap1>>10, g0, g1)
	if heap1 < heap0+uint64(n)*256 {
		t.Errorf("heap with %d open sessions: %d → %d KiB; want it to grow (else this test measures nothing)", n, heap0>>10, heap1>>10)
	}

	deadline := time.Now().Add(60 * time.Second)
	var heap2 uint64
	var g2 int
	for {
		c.client.CloseIdleConnections()
		heap2, g2 = heapAndGoroutines()
		if g2 <= g0+10 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("after the idle timeout: heap %d KiB, goroutines %d", heap2>>10, g2)
	if g2 > g0+10 {
		t.Errorf("goroutines after the idle timeout: %d; want near the baseline %d", g2, g0)
	}
	// Near the baseline: within a quarter of what the open sessions held,
	// plus 1 MiB of slack for the allocator.
	if grown := int64(heap2) - int64(heap0); grown > int64(heap1-heap0)/4+1<<20 {
		t.Errorf("heap after the idle timeout: %d KiB over the baseline (open sessions held %d KiB); want it freed", grown>>10, (heap1-heap0)>>10)
	}
	resp, err := c.post(context.Background(), sids[0], `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a call on a timed-out session: %s; want 404 (start a new session)", resp.Status)
	}
}

// ping posts a ping on session sid and returns the HTTP status.
func (c *rawHTTP) ping(sid string) int {
	c.t.Helper()
	resp, err := c.post(context.Background(), sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if err != nil {
		c.t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// tryOpen posts an initialize and returns the status and body.
func (c *rawHTTP) tryOpen() (int, string) {
	c.t.Helper()
	resp, err := c.post(context.Background(), "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+protoLegacy+`","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if err != nil {
		c.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(body)
}

// stream opens the GET event stream of session sid and returns once the
// server answered its headers; cancel ends it.
func (c *rawHTTP) stream(sid string) (end func()) {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", protoLegacy)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := c.client.Do(req)
	if err != nil {
		cancel()
		c.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		c.t.Fatalf("GET stream of %s: %s; want 200", sid, resp.Status)
	}
	return func() { cancel(); resp.Body.Close() }
}

// TestSessionBound: at MaxSessions a new session closes the least recently
// used idle one, whose client then gets 404 (and would start a new
// session); a newcomer gets 503 only while every session has a request in
// flight.
func TestSessionBound(t *testing.T) {
	ws := localWorkspace(t, 1)
	addr := serveHTTPForTest(t, &Options{Root: ws.Root, MaxSessions: 3})
	c := &rawHTTP{t: t, url: "http://" + addr + "/", client: &http.Client{}}
	defer c.client.CloseIdleConnections()
	a, b, cc := c.open(), c.open(), c.open()
	if st := c.ping(a); st != http.StatusOK { // a is now more recent than b and cc
		t.Fatalf("ping a: %d; want 200", st)
	}
	d := c.open() // closes b, the least recently used
	for _, tc := range []struct {
		name, sid string
		want      int
	}{
		{"b, least recently used", b, http.StatusNotFound},
		{"a, used since", a, http.StatusOK},
		{"cc", cc, http.StatusOK},
		{"d, the newcomer", d, http.StatusOK},
	} {
		if got := c.ping(tc.sid); got != tc.want {
			t.Errorf("ping %s: %d; want %d", tc.name, got, tc.want)
		}
	}

	// Every session with a request in flight (an event stream): nothing
	// to close, the newcomer is refused.
	var cancels []func()
	for _, sid := range []string{a, cc, d} {
		cancels = append(cancels, c.stream(sid))
	}
	defer func() {
		for _, f := range cancels {
			f()
		}
	}()
	if st, body := c.tryOpen(); st != http.StatusServiceUnavailable || !strings.Contains(body, "too many open MCP sessions, each with a request in flight") {
		t.Errorf("newcomer with every session busy: %d %q; want 503", st, body)
	}
	// cc's stream ends: cc is idle again, and the newcomer closes it.
	cancels[1]()
	deadline := time.Now().Add(10 * time.Second)
	st, _ := c.tryOpen()
	for st == http.StatusServiceUnavailable && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the server sees the stream end shortly after the client
		st, _ = c.tryOpen()
	}
	if st != http.StatusOK {
		t.Fatalf("newcomer after a stream ended: %d; want 200", st)
	}
	if got := c.ping(cc); got != http.StatusNotFound {
		t.Errorf("ping cc, idle and closed for the newcomer: %d; want 404", got)
	}
}

// TestAbandonedSessionsAtCap: 300 sessions abandoned without DELETE at a
// cap of 256 do not lock a new client out: it is served at once, the least
// recently used sessions were closed (404) and the recent ones still work.
func TestAbandonedSessionsAtCap(t *testing.T) {
	const n, max = 300, 256
	ws := localWorkspace(t, 1)
	addr := serveHTTPForTest(t, &Options{Root: ws.Root, MaxSessions: max})
	c := &rawHTTP{t: t, url: "http://" + addr + "/", client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	defer c.client.CloseIdleConnections()
	sids := make([]string, n)
	for i := range sids {
		sids[i] = c.open() // fails the test on anything but 200
	}
	fresh := c.open()
	if st := c.ping(fresh); st != http.StatusOK {
		t.Fatalf("a new client after %d abandoned sessions: ping %d; want 200", n, st)
	}
	// The cap holds: the newest max-1 abandoned sessions and the new one.
	closed := n + 1 - max
	for i, sid := range sids {
		want := http.StatusOK
		if i < closed {
			want = http.StatusNotFound
		}
		if got := c.ping(sid); got != want {
			t.Errorf("session %d of %d: ping %d; want %d", i, n, got, want)
		}
	}
}

// TestFailedDeleteClosesSession: a DELETE the SDK refuses (a protocol
// version it does not accept, a cross-site request) still closes its
// session: the client asked for its end.
func TestFailedDeleteClosesSession(t *testing.T) {
	ws := localWorkspace(t, 1)
	addr := serveHTTPForTest(t, &Options{Root: ws.Root})
	c := &rawHTTP{t: t, url: "http://" + addr + "/", client: &http.Client{}}
	defer c.client.CloseIdleConnections()
	for _, tc := range []struct {
		name   string
		header http.Header
	}{
		{"unsupported protocol version", http.Header{"Mcp-Protocol-Version": {"1999-01-01"}}},
		{"cross-site", http.Header{"Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sid := c.open()
			req, _ := http.NewRequest(http.MethodDelete, c.url, nil)
			req.Header = tc.header
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Authorization", "Bearer "+testToken)
			resp, err := c.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode < 400 {
				t.Fatalf("DELETE: %s; want the SDK to refuse it (else this test tests nothing)", resp.Status)
			}
			if got := c.ping(sid); got != http.StatusNotFound {
				t.Errorf("ping after a refused DELETE: %d; want 404 (the session closed)", got)
			}
		})
	}
}

// hangingOrigin serves requests that never finish on their own: it reports
// each request's start, and whether it ended because the request was
// cancelled.
type hangingOrigin struct {
	srv       *httptest.Server
	port      uint16
	started   chan struct{}
	cancelled chan struct{}
}

func newHangingOrigin(t *testing.T) *hangingOrigin {
	o := &hangingOrigin{started: make(chan struct{}, 16), cancelled: make(chan struct{}, 16)}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		o.started <- struct{}{}
		select {
		case <-r.Context().Done():
			o.cancelled <- struct{}{}
		case <-time.After(20 * time.Second):
		}
	}))
	t.Cleanup(o.srv.Close)
	u, _ := url.Parse(o.srv.URL)
	p, _ := strconv.ParseUint(u.Port(), 10, 16)
	o.port = uint16(p)
	return o
}

func (o *hangingOrigin) awaitStart(t *testing.T) {
	t.Helper()
	select {
	case <-o.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the call never reached the origin")
	}
}

func (o *hangingOrigin) awaitCancel(t *testing.T) {
	t.Helper()
	select {
	case <-o.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the origin's request was not cancelled when the client went away")
	}
}

// awaitAuditOutcome waits (bounded) for one audit line and returns its
// outcome.
func awaitAuditOutcome(t *testing.T, ws workspace.Workspace) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if lines := auditLines(t, ws); len(lines) > 0 {
			if len(lines) != 1 {
				t.Errorf("%d audit lines; want 1", len(lines))
			}
			out, _ := lines[0]["outcome"].(string)
			return out
		}
		if time.Now().After(deadline) {
			t.Fatal("no audit line")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestClientGoneMidCallCancels: a client that resets its connection, or
// closes its session, while a call runs stops the upstream request, and
// the call is audited as cancelled.
func TestClientGoneMidCallCancels(t *testing.T) {
	for _, how := range []string{"socket reset", "session closed"} {
		t.Run(how, func(t *testing.T) {
			o := newHangingOrigin(t)
			ws := localWorkspace(t, o.port, fmt.Sprintf("127.0.0.1:%d", o.port))
			addr := serveHTTPForTest(t, &Options{Root: ws.Root})
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			c := &rawHTTP{t: t, url: "http://" + addr + "/", client: &http.Client{Transport: tr}}
			sid := c.open()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				resp, err := c.post(ctx, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch","arguments":{"url":%q}}}`, o.srv.URL))
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				errc <- err
			}()
			o.awaitStart(t)
			switch how {
			case "socket reset":
				cancel() // closes the connection under the POST
			case "session closed":
				c.delete(sid)
			}
			o.awaitCancel(t)
			if got := awaitAuditOutcome(t, ws); got != "cancelled" {
				t.Errorf("audit outcome %q; want cancelled", got)
			}
			cancel()
			<-errc
		})
	}
}

// TestStdioInputClosedMidCallCancels: on stdio, the client closing the
// transport (stdin) while a call runs stops the upstream request.
func TestStdioInputClosedMidCallCancels(t *testing.T) {
	o := newHangingOrigin(t)
	ws := localWorkspace(t, o.port, fmt.Sprintf("127.0.0.1:%d", o.port))
	var logs syncBuffer
	s := startStdio(t, &Options{Root: ws.Root, Logger: newTestLogger(&logs)}, protoLegacy)
	defer func() {
		if t.Failed() {
			t.Logf("logs:\n%s", logs.String())
		}
	}()
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch","arguments":{"url":%q}}}`, o.srv.URL))
	o.awaitStart(t)
	s.close()
	o.awaitCancel(t)
	if got := awaitAuditOutcome(t, ws); got != "cancelled" {
		t.Errorf("audit outcome %q; want cancelled", got)
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
