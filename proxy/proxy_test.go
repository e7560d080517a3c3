package proxy

import (
	"bytes"
	"context"
	"errors"
	"github.com/ocfetch/ocfetch/scope"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/loopback"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
)

// TestClientThroughProxy drives Go's http.Client through the proxy: https
// by CONNECT and http in absolute form, for every admission path the
// contract names.
func TestClientThroughProxy(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Permissive})
	site := httptest.NewServer(http.HandlerFunc(echoHandler))
	defer site.Close()
	sitePort := localPort(t, site)
	other := httptest.NewServer(http.HandlerFunc(echoHandler))
	defer other.Close()
	otherPort := localPort(t, other)

	w.rule(rules.Allow, publicHost, 443)
	w.rule(rules.Allow, publicHost, 80)
	w.rule(rules.Allow, "*.example.test", 443)
	w.rule(rules.Deny, deniedHost, 443)
	w.rule(rules.Allow, privateHost, 443)
	w.rule(rules.Allow, "localhost", sitePort)
	w.rule(rules.Allow, "127.0.0.1", otherPort)
	w.rule(rules.Allow, "127.0.0.2", sitePort)
	w.allowLocal(uint16(sitePort))
	c := w.client()

	tests := []struct {
		name       string
		url        string
		wantStatus int
		wantBody   string // prefix; for refusals the one line the proxy wrote
		wantReason refusal.Code
	}{
		{name: "allowed https host through CONNECT", url: "https://" + publicHost + "/", wantStatus: 200, wantBody: "hello from " + publicHost},
		{name: "allowed http host in absolute form", url: "http://" + publicHost + "/", wantStatus: 200, wantBody: "hello from " + publicHost},
		{name: "loopback through local mode", url: "http://localhost:" + strconv.Itoa(sitePort) + "/", wantStatus: 200, wantBody: "hello from localhost:" + strconv.Itoa(sitePort)},
		{name: "denied host", url: "http://" + deniedHost + ":443/", wantStatus: 403, wantReason: refusal.DeniedByRule,
			wantBody: "ocfetch: denied_by_rule: denied.example.test:443 is denied by the rule"},
		{name: "uncovered host", url: uncoveredURL, wantStatus: 403, wantReason: refusal.NotApproved,
			wantBody: "ocfetch: not_approved: uncovered.test:80 is not covered by a saved rule, and the proxy accepts saved rules only (hint: allow it with: ocfetch rules allow uncovered.test:80)"},
		{name: "loopback port not in the allowlist", url: "http://127.0.0.1:" + strconv.Itoa(otherPort) + "/", wantStatus: 403, wantReason: refusal.LocalPortNotAllowed},
		{name: "127.0.0.2 is not a local-mode host", url: "http://127.0.0.2:" + strconv.Itoa(sitePort) + "/", wantStatus: 403, wantReason: refusal.AddressNotPublic},
		{name: "a name that resolves to a private address", url: "http://" + privateHost + ":443/", wantStatus: 403, wantReason: refusal.AddressNotPublic},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := c.Get(tc.url)
			if err != nil {
				t.Fatalf("GET %s: %v", tc.url, err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("status: got %d; want %d (body %q)", resp.StatusCode, tc.wantStatus, body)
			}
			if got := refusal.Code(resp.Header.Get(ReasonHeader)); got != tc.wantReason {
				t.Errorf("%s: got %q; want %q", ReasonHeader, got, tc.wantReason)
			}
			if !strings.HasPrefix(string(body), tc.wantBody) {
				t.Errorf("body: got %q; want prefix %q", body, tc.wantBody)
			}
			if tc.wantReason != "" && strings.Count(string(body), "\n") != 1 {
				t.Errorf("refusal body %q is not one line", body)
			}
		})
	}
	// https refusals arrive as a failed CONNECT: Go reports the status.
	for _, host := range []string{deniedHost, "uncovered.test", privateHost} {
		t.Run("CONNECT refused for "+host, func(t *testing.T) {
			_, err := c.Get("https://" + host + "/")
			if err == nil || !strings.Contains(err.Error(), "Forbidden") {
				t.Errorf("GET https://%s/: got %v; want a 403 Forbidden from the proxy", host, err)
			}
		})
	}
	for _, a := range w.dials.List() {
		switch a {
		case publicAddr + ":443", publicAddr + ":80", "127.0.0.1:" + strconv.Itoa(sitePort):
		default:
			t.Errorf("the guard dialled %s; only the admitted targets may be dialled", a)
		}
	}
}

// TestLeadingZeroPort: a CONNECT or absolute-form target with a port
// written with a leading zero is refused by a message that says so.
func TestLeadingZeroPort(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Standard})
	for _, head := range []string{
		connectHead("example.test:0443"),
		"GET http://example.test:080/ HTTP/1.1\r\nHost: example.test\r\n\r\n",
	} {
		resp, body := w.raw(head)
		if resp.StatusCode != 400 || !strings.Contains(body, "has a leading zero; write it as ") {
			t.Errorf("%.40q: %d %q; want 400 naming the leading zero", head, resp.StatusCode, body)
		}
	}
	if got := w.dials.List(); len(got) != 0 {
		t.Errorf("refused requests dialled %v; want no dial", got)
	}
}

// TestRefusals checks the proxy's own answers, raw, for requests a client
// library would not send.
func TestRefusals(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Standard, tune: func(o *Options) { o.MaxHeaderBytes = 4 << 10 }})
	w.rule(rules.Allow, "localhost", 8080)
	tests := []struct {
		name       string
		head       string
		wantStatus int
		wantReason refusal.Code
		// summary is the audit line's summary: the host whenever the
		// request named one that parses ("" for no audit line).
		summary string
	}{
		{"local mode needs the permissive profile", connectHead("localhost:8080"), 403, refusal.LocalProfileNotPermissive, "CONNECT localhost"},
		{"CONNECT without a port", connectHead(publicHost), 400, refusal.InvalidArguments, "CONNECT " + publicHost},
		{"CONNECT with a path", "CONNECT example.test:443/x HTTP/1.1\r\nHost: x\r\n\r\n", 400, refusal.InvalidArguments, "CONNECT -"},
		{"CONNECT with a non-canonical IPv4 host", connectHead("127.1:443"), 403, refusal.InvalidHost, "CONNECT -"},
		{"CONNECT to a host with two trailing dots", connectHead("localhost..:8080"), 403, refusal.InvalidHost, "CONNECT -"},
		{"CONNECT to the IPv4-mapped loopback", connectHead("[::ffff:127.0.0.1]:8080"), 403, refusal.AddressNotPublic, "CONNECT ::ffff:127.0.0.1"},
		{"CONNECT to the metadata address", connectHead("169.254.169.254:80"), 403, refusal.AddressNotPublic, "CONNECT 169.254.169.254"},
		{"origin-form request", "GET /secret?q=1 HTTP/1.1\r\nHost: example.test\r\n\r\n", 400, refusal.InvalidArguments, "GET -"},
		{"https in absolute form", "GET https://example.test/secret HTTP/1.1\r\nHost: example.test\r\n\r\n", 403, refusal.SchemeNotAllowed, "GET example.test"},
		{"ftp in absolute form", "GET ftp://example.test/ HTTP/1.1\r\nHost: example.test\r\n\r\n", 403, refusal.SchemeNotAllowed, "GET example.test"},
		{"credentials in the URL", "GET http://u:p@example.test/ HTTP/1.1\r\nHost: example.test\r\n\r\n", 403, refusal.CredentialsInURL, "GET example.test"},
		{"malformed head", "NOT A REQUEST\r\n\r\n", 400, refusal.InvalidArguments, ""},
		{"head too large", "GET http://example.test/ HTTP/1.1\r\nX-Big: " + strings.Repeat("a", 16<<10) + "\r\n\r\n", 431, refusal.RequestHeadersTooLarge, ""},
		{"white space before a header's colon", "GET http://example.test/ HTTP/1.1\r\nHost: example.test\r\nX-Bad : b\r\n\r\n", 400, refusal.InvalidArguments, "GET example.test"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := w.raw(tc.head)
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("status: got %d; want %d (body %q)", resp.StatusCode, tc.wantStatus, body)
			}
			if got := refusal.Code(resp.Header.Get(ReasonHeader)); got != tc.wantReason {
				t.Errorf("%s: got %q; want %q", ReasonHeader, got, tc.wantReason)
			}
			if got := resp.Header.Get("Content-Type"); !strings.HasPrefix(got, "text/plain") {
				t.Errorf("Content-Type: got %q; want text/plain", got)
			}
			if !strings.HasPrefix(body, "ocfetch: "+string(tc.wantReason)+": ") || strings.Count(body, "\n") != 1 {
				t.Errorf("body: got %q; want one line starting %q", body, "ocfetch: "+string(tc.wantReason)+": ")
			}
			if strings.Contains(body, "secret") {
				t.Errorf("body %q quotes the request's path", body)
			}
		})
	}
	if got := w.dials.List(); len(got) != 0 {
		t.Errorf("refused requests dialled %v; want no dial", got)
	}
	var want []string
	for _, tc := range tests {
		if tc.summary != "" {
			want = append(want, tc.summary)
		}
	}
	var got []string
	for _, e := range w.waitAudit(len(want)) {
		got = append(got, e.Summary)
	}
	// A line is written when its exchange ends, after the client has its
	// answer: the order is not the requests'.
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit summaries:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, e := range w.waitAudit(len(want)) { // a malformed or oversized head has no audit line
		if strings.Contains(e.Summary, "secret") || strings.Contains(e.Summary, "/") {
			t.Errorf("audit summary %q carries a path", e.Summary)
		}
		if e.Decision == "allow" {
			t.Errorf("audit line %+v: got decision allow for a refused request", e)
		}
	}
}

// TestRulesReadPerRequest: rules.json and local_fetch.json are read on every
// request, and a corrupt rules file fails closed.
func TestRulesReadPerRequest(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Permissive})
	site := httptest.NewServer(http.HandlerFunc(echoHandler))
	defer site.Close()
	port := localPort(t, site)
	target := "localhost:" + strconv.Itoa(port)
	get := func() (int, refusal.Code) {
		resp, _ := w.raw("GET http://" + target + "/ HTTP/1.1\r\nHost: " + target + "\r\nConnection: close\r\n\r\n")
		return resp.StatusCode, refusal.Code(resp.Header.Get(ReasonHeader))
	}
	type result struct {
		Status int
		Reason refusal.Code
	}
	steps := []struct {
		name   string
		change func()
		want   result
	}{
		{"no allowlist", func() {}, result{403, refusal.LocalAllowlistMissing}},
		{"port allowlisted, no rule", func() { w.allowLocal(uint16(port)) }, result{403, refusal.NotApproved}},
		{"rule saved", func() { w.rule(rules.Allow, "localhost", port) }, result{200, ""}},
		{"port revoked", func() { w.allowLocal(1) }, result{403, refusal.LocalPortNotAllowed}},
		{"port back, rules file corrupt", func() {
			w.allowLocal(uint16(port))
			if err := os.WriteFile(w.ws.RulesPath(), []byte("{not json"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, result{403, refusal.RulesInvalid}},
	}
	for _, st := range steps {
		st.change()
		status, reason := get()
		if diff := cmp.Diff(st.want, result{status, reason}); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", st.name, diff)
		}
	}
}

// TestForwardHeaders: absolute-form forwarding strips hop-by-hop headers
// and Proxy-Authorization, sets Host from the checked target, streams a
// body both ways, passes redirects through, and keeps the connection alive.
func TestForwardHeaders(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Standard})
	w.rule(rules.Allow, publicHost, 80)
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := newReader(c)

	io.WriteString(c, "POST http://EXAMPLE.test/echo?x=1 HTTP/1.1\r\nHost: evil.test\r\n"+
		"Proxy-Authorization: Basic c2VjcmV0\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\nX-Keep: 1\r\n"+
		"Content-Length: 5\r\n\r\nhello")
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	got := map[string]string{
		"status": resp.Status, "body": string(body),
		"host": resp.Header.Get("X-Got-Host"), "proxy-authorization": resp.Header.Get("X-Got-Proxy-Authorization"),
		"x-hop": resp.Header.Get("X-Got-Custom-Hop"), "x-keep": resp.Header.Get("X-Got-Keep"),
	}
	want := map[string]string{
		"status": "200 OK", "body": "hello", "host": publicHost, "proxy-authorization": "", "x-hop": "", "x-keep": "1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("forwarded request (-want +got)\n%s", diff)
	}

	// Same connection: a redirect is passed through, not followed.
	io.WriteString(c, "GET http://example.test/redirect HTTP/1.1\r\nHost: example.test\r\n\r\n")
	resp, err = http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("second request on a kept-alive connection: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "http://elsewhere.test/" {
		t.Errorf("redirect: got %d Location %q; want 302 to http://elsewhere.test/", resp.StatusCode, resp.Header.Get("Location"))
	}

	es := w.waitAudit(2)
	if len(es) != 2 {
		t.Fatalf("audit: got %d lines; want 2", len(es))
	}
	type line struct {
		Summary, Decision, DecidedBy, Rule, Outcome string
		Status                                      int
		Up                                          int64
	}
	gotLines := []line{}
	for _, e := range es {
		gotLines = append(gotLines, line{e.Summary, string(e.Decision), string(e.DecidedBy), e.Rule, e.Outcome, e.Status, e.BytesUp})
	}
	wantLines := []line{
		{"POST example.test", "allow", "rule", "allow example.test:80", "ok", 200, 5},
		{"GET example.test", "allow", "rule", "allow example.test:80", "ok", 302, 0},
	}
	if diff := cmp.Diff(wantLines, gotLines); diff != "" {
		t.Errorf("audit lines (-want +got)\n%s", diff)
	}
	if es[0].BytesDown != 5 {
		t.Errorf("audit BytesDown: got %d; want 5", es[0].BytesDown)
	}
}

// TestTunnelAudit: a tunnel is one audit line with bytes each way.
func TestTunnelAudit(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Permissive})
	ln, port := w.upstream("127.0.0.1")
	go func() { // an echo server that closes after "bye"
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b := make([]byte, 3)
		io.ReadFull(c, b)
		io.WriteString(c, "hello, tunnel")
	}()

	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	// The first bytes follow the CONNECT head without waiting for the 200.
	io.WriteString(c, connectHead("127.0.0.1:"+strconv.Itoa(port))+"bye")
	br := newReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: got %v, %v; want 200", resp, err)
	}
	rest, _ := io.ReadAll(br)
	if string(rest) != "hello, tunnel" {
		t.Errorf("through the tunnel: got %q; want %q", rest, "hello, tunnel")
	}
	c.Close()
	es := w.waitAudit(1)
	if len(es) != 1 {
		t.Fatalf("audit: got %d lines; want 1", len(es))
	}
	e := es[0]
	got := []any{e.Tool, e.Summary, string(e.Decision), e.Outcome, e.Status, e.BytesUp, e.BytesDown, e.Requirement.Target.Port()}
	want := []any{"proxy", "CONNECT 127.0.0.1", "allow", "ok", 200, int64(3), int64(13), uint16(port)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit line (-want +got)\n%s", diff)
	}
}

// TestConcurrencyCap: past MaxConcurrent the proxy answers 503
// too_many_connections, and serves again once a connection ends.
func TestConcurrencyCap(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Permissive, tune: func(o *Options) { o.MaxConcurrent = 2 }})
	// Two connections that have not sent a head yet hold both tokens.
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", w.addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		defer c.Close()
	}
	waitFor(t, func() bool { return len(w.srv.sem) == 2 })
	resp, body := w.raw(connectHead(publicHost + ":443"))
	if resp.StatusCode != 503 || resp.Header.Get(ReasonHeader) != string(refusal.TooManyConnections) {
		t.Errorf("past the cap: got %d %q %q; want 503 too_many_connections", resp.StatusCode, resp.Header.Get(ReasonHeader), body)
	}
	held[0].Close()
	waitFor(t, func() bool { return len(w.srv.sem) == 1 })
	resp, _ = w.raw(connectHead(publicHost + ":443"))
	if resp.StatusCode != 403 {
		t.Errorf("after a connection ended: got %d; want 403 (served, not approved)", resp.StatusCode)
	}
}

// TestTimeouts: a client that sends no head is dropped after the handshake
// timeout; a tunnel on which nothing moves is closed after the idle
// timeout, while one that trickles stays open.
func TestTimeouts(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Permissive, tune: func(o *Options) {
		o.HandshakeTimeout = 100 * time.Millisecond
		o.IdleTimeout = 400 * time.Millisecond
	}})
	t.Run("handshake", func(t *testing.T) {
		c, err := net.Dial("tcp", w.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		start := time.Now()
		n, err := c.Read(make([]byte, 1))
		if n != 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("silent client: got %d, %v; want the proxy to close the connection", n, err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("closed after %v; want about the handshake timeout", d)
		}
	})

	ln, port := w.upstream("localhost")
	upstream := make(chan net.Conn, 2)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			upstream <- c
		}
	}()
	open := func(t *testing.T) (net.Conn, net.Conn) {
		c, err := net.Dial("tcp", w.addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, connectHead("localhost:"+strconv.Itoa(port)))
		resp, err := http.ReadResponse(newReader(c), &http.Request{Method: http.MethodConnect})
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("CONNECT: %v %v", resp, err)
		}
		return c, <-upstream
	}
	t.Run("idle tunnel", func(t *testing.T) {
		c, up := open(t)
		defer c.Close()
		defer up.Close()
		start := time.Now()
		n, err := c.Read(make([]byte, 1))
		if n != 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("idle tunnel: got %d, %v; want closed by the proxy", n, err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("closed after %v; want about twice the idle timeout at most", d)
		}
	})
	t.Run("trickling tunnel", func(t *testing.T) {
		c, up := open(t)
		defer c.Close()
		defer up.Close()
		// One byte every 50 ms for 5 idle periods, one direction only.
		buf := make([]byte, 1)
		for i := range 40 {
			if _, err := up.Write([]byte{'x'}); err != nil {
				t.Fatalf("write %d: %v", i, err)
			}
			if _, err := io.ReadFull(c, buf); err != nil {
				t.Fatalf("byte %d after %d idle periods: %v; a busy tunnel must stay open", i, i/8, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// TestShutdown: Shutdown closes the listener and idle connections at
// once, lets an active tunnel run until its context ends, then closes it.
func TestShutdown(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Permissive})
	ln, port := w.upstream("localhost")
	go func() {
		c, err := ln.Accept()
		if err == nil {
			defer c.Close()
			io.Copy(io.Discard, c)
		}
	}()
	idle, err := net.Dial("tcp", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	tun, err := net.Dial("tcp", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer tun.Close()
	tun.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(tun, connectHead("localhost:"+strconv.Itoa(port)))
	if resp, err := http.ReadResponse(newReader(tun), &http.Request{Method: http.MethodConnect}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = w.srv.Shutdown(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown with an active tunnel: got %v; want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("Shutdown returned after %v; want it to wait for the active tunnel", d)
	}
	for name, c := range map[string]net.Conn{"idle": idle, "tunnel": tun} {
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("%s connection after Shutdown: got %v; want closed", name, err)
		}
	}
	if _, err := net.DialTimeout("tcp", w.addr, time.Second); err == nil {
		t.Errorf("dial after Shutdown: got a connection; want the listener closed")
	}
}

// TestListenAndServeLoopbackOnly: the proxy refuses to listen anywhere
// but loopback (internal/loopback's check, tested there case by case).
func TestListenAndServeLoopbackOnly(t *testing.T) {
	s, err := New(&Options{Scope: &scope.Scope{Workspace: testws.Bare(t), Layers: testlayers.New(t).Layers}})
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "example.com:80"} {
		if err := s.ListenAndServe(addr); !errors.Is(err, loopback.ErrNotLoopback) {
			t.Errorf("ListenAndServe(%s): got %v; want ErrNotLoopback", addr, err)
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestRulesFollowEveryChange: the rules cache never answers for bytes other
// than those read for the request. The file flips between an allow and a
// deny document of the same size, written in place, on every request.
func TestRulesFollowEveryChange(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Standard})
	doc := func(d string) []byte {
		return []byte(`{"schema_version": 1, "rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "example.test", "port": 80}, "decision": "` + d + `"}]}`)
	}
	allow, deny := doc("allow"), doc("deny ")
	deny = bytes.Replace(deny, []byte(`"deny "`), []byte(`"deny"`), 1)
	deny = append(deny, ' ') // same size as allow: only the bytes differ
	if len(allow) != len(deny) {
		t.Fatalf("test documents differ in size: %d, %d", len(allow), len(deny))
	}
	for i := range 20 {
		data, want := allow, ""
		if i%3 == 1 {
			data, want = deny, string(refusal.DeniedByRule)
		}
		if err := os.WriteFile(w.ws.RulesPath(), data, 0o644); err != nil {
			t.Fatal(err)
		}
		resp, _ := w.raw("GET http://example.test/ HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n")
		if got := resp.Header.Get(ReasonHeader); got != want {
			t.Fatalf("request %d: got reason %q; want %q", i, got, want)
		}
	}
	// A dangling symlink is not "no rules": rules.Load refuses it.
	os.Remove(w.ws.RulesPath())
	if err := os.Symlink(w.ws.RulesPath()+".missing", w.ws.RulesPath()); err != nil {
		t.Fatal(err)
	}
	resp, _ := w.raw("GET http://example.test/ HTTP/1.1\r\nHost: example.test\r\n\r\n")
	if got := refusal.Code(resp.Header.Get(ReasonHeader)); got != refusal.RulesInvalid {
		t.Errorf("dangling rules.json symlink: got %q; want %q", got, refusal.RulesInvalid)
	}
}

// TestNeverDialsItself: the proxy's own port is refused even when it is
// allowlisted and covered by a rule.
func TestNeverDialsItself(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Permissive})
	_, p, _ := net.SplitHostPort(w.addr)
	port, _ := strconv.Atoi(p)
	w.allowLocal(uint16(port))
	w.rule(rules.Allow, "localhost", port)
	w.rule(rules.Allow, "127.0.0.1", port)
	for _, target := range []string{"localhost:" + p, "127.0.0.1:" + p} {
		resp, body := w.raw(connectHead(target))
		if resp.StatusCode != 403 || refusal.Code(resp.Header.Get(ReasonHeader)) != refusal.LocalPortNotAllowed {
			t.Errorf("CONNECT %s: got %d %q; want 403 local_port_not_allowed", target, resp.StatusCode, body)
		}
	}
	if got := w.dials.List(); len(got) != 0 {
		t.Errorf("dialled %v; want no dial", got)
	}
}

// TestRefusalLine: the line ocfetch run prints for each kind of refusal
// names the host and the file and says to ask the user; a command in a
// hint is given as the user's to run.
func TestRefusalLine(t *testing.T) {
	target := capability.MustTarget("example.org", 443)
	for _, tc := range []struct {
		name string
		r    Refusal
		want string
	}{
		{"not covered", Refusal{Method: "CONNECT", Target: target, File: "/src/proj/.oc_chat/rules.json",
			Err: refusal.New(refusal.NotApproved, "example.org:443 is not covered by a saved rule").WithHint("allow it with: ocfetch rules allow example.org:443")},
			"ocfetch: refused CONNECT example.org:443: not_approved (file /src/proj/.oc_chat/rules.json) — ask the user to allow it; the user can run: ocfetch rules allow example.org:443"},
		{"denied by a rule", Refusal{Method: "GET", Target: target, File: "/home/u/.config/ocfetch/rules.json",
			Err: refusal.New(refusal.DeniedByRule, "denied").WithHint("remove the rule with: ocfetch rules remove --user example.org:443")},
			"ocfetch: refused GET example.org:443: denied_by_rule (file /home/u/.config/ocfetch/rules.json) — ask the user to allow it; the user can run: ocfetch rules remove --user example.org:443"},
		{"the administrator's", Refusal{Method: "CONNECT", Target: target, File: "/etc/ocfetch/policy.json",
			Err: refusal.New(refusal.DeniedByRule, "denied").WithHint("the administrator's policy decides this; ask your administrator")},
			"ocfetch: refused CONNECT example.org:443: denied_by_rule (file /etc/ocfetch/policy.json) — ask the user to allow it; for the user: the administrator's policy decides this; ask your administrator"},
		{"a file name with controls", Refusal{Method: "CONNECT", Target: target, File: "/src/p\u202eroj\x1b[2J/.oc_chat/rules.json",
			Err: refusal.New(refusal.NotApproved, "x")},
			"ocfetch: refused CONNECT example.org:443: not_approved (file /src/p\uFFFDroj\uFFFD[2J/.oc_chat/rules.json) — ask the user to allow it"},
		{"a private answer: no rule can allow it", Refusal{Method: "CONNECT", Target: target,
			Err: refusal.New(refusal.AddressNotPublic, "example.org resolves to 10.1.2.3").WithHint("only public addresses are reachable")},
			"ocfetch: refused CONNECT example.org:443: address_not_public — no rule can allow it; for the user: only public addresses are reachable"},
		{"no target: nothing to allow", Refusal{Method: "CONNECT", Err: refusal.New(refusal.InvalidHost, "bad").WithHint("name the target as host:port")},
			"ocfetch: refused CONNECT: invalid_host — name the target as host:port"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.Line(); got != tc.want {
				t.Errorf("Line() =\n  %q\nwant\n  %q", got, tc.want)
			}
		})
	}
}

// TestForwardResponseHeadTooLarge: an upstream that answers with a head
// over the limit is named response_headers_too_large (502), in the answer
// and the audit line, not connection_failed: it was reached.
func TestForwardResponseHeadTooLarge(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Standard})
	w.rule(rules.Allow, publicHost, 80)
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "GET http://example.test/bighead?token=s3cret HTTP/1.1\r\nHost: example.test\r\n\r\n")
	resp, err := http.ReadResponse(newReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "response_headers_too_large") {
		t.Errorf("got %d %q; want 502 response_headers_too_large", resp.StatusCode, body)
	}
	if strings.Contains(string(body), "s3cret") || strings.Contains(string(body), "bighead") {
		t.Errorf("answer %q names the request's path or query", body)
	}
	es := w.waitAudit(1)
	if len(es) != 1 || es[0].Outcome != "response_headers_too_large" {
		t.Fatalf("audit %+v; want one line with outcome response_headers_too_large", es)
	}
}
