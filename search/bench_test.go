package search_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/testcpu"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/search"
	"github.com/ocfetch/ocfetch/tool"
)

// benchBackend is a SearXNG on loopback answering 10 results (about 3 KB).
func benchBackend(b *testing.B) (*httptest.Server, uint16, string) {
	var rs []string
	for i := range 10 {
		rs = append(rs, fmt.Sprintf(`{"url": "https://r%d.example/a/page", "title": "Result number %d of the benchmark", "content": "%s", "engine": "e", "score": 1.0}`, i, i, strings.Repeat("snippet text ", 15)))
	}
	body := `{"query": "q", "number_of_results": 10, "results": [` + strings.Join(rs, ",") + `], "answers": [], "suggestions": []}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	b.Cleanup(srv.Close)
	port := uint16(srv.Listener.Addr().(*net.TCPAddr).Port)
	return srv, port, "http://127.0.0.1:" + strconv.Itoa(int(port))
}

// BenchmarkPlainRoundTrip is the baseline: a plain http.Client GET of the
// same answer from the same loopback backend, body read.
func BenchmarkPlainRoundTrip(b *testing.B) {
	_, _, base := benchBackend(b)
	get, done := plainSearch(b, base)
	defer done()
	testcpu.Loop(b, get)
}

// BenchmarkSearchTool is the tool alone on the same backend, under an
// admission bound as the broker binds it: strict decoding, the guarded
// client, the parse, safetext and the rendering.
func BenchmarkSearchTool(b *testing.B) {
	_, port, base := benchBackend(b)
	run, done := searchTool(b, port, base)
	defer done()
	testcpu.Loop(b, run)
}

// BenchmarkSearchCall is a whole call through the broker: the tool plus
// policy.Decide (rules, trust store and managed policy read) and the
// audit line appended to the file.
func BenchmarkSearchCall(b *testing.B) {
	_, port, base := benchBackend(b)
	call, done := searchCall(b, port, base)
	defer done()
	testcpu.Loop(b, call)
}

// BenchmarkSearchInterleaved is issue 24's ratios measured call by call:
// each iteration runs a plain GET, the tool alone and a call through the
// broker on the same backend, in an order that rotates, each charged the
// process CPU its call took (testcpu.Interleave). Reported: each one's
// CPU per call, "tool/plain" and "call/plain" (targets ≤ 1.3).
func BenchmarkSearchInterleaved(b *testing.B) {
	_, port, base := benchBackend(b)
	get, donePlain := plainSearch(b, base)
	defer donePlain()
	run, doneTool := searchTool(b, port, base)
	defer doneTool()
	call, doneCall := searchCall(b, port, base)
	defer doneCall()
	testcpu.Interleave(b, get, run, call).Report(b, "plain", "tool", "call")
}

// plainSearch returns a plain http.Client GET of a search on the backend
// at base, the body read. done closes the client's connections.
func plainSearch(b *testing.B, base string) (get, done func()) {
	c := &http.Client{Timeout: 10 * time.Second}
	u := base + "/search?q=go+generics&format=json&pageno=1"
	return func() {
		resp, err := c.Get(u)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}, c.CloseIdleConnections
}

// searchTool returns one run of the search tool alone (prepare and run)
// on the SearXNG at base, under the admission the broker would bind:
// local mode's of the backend's port.
func searchTool(b *testing.B, port uint16, base string) (run, done func()) {
	be, _ := search.NewSearXNG(base)
	c := egress.NewClient(&egress.Options{Timeout: 10 * time.Second})
	s := search.New(c, be, nil)
	ctx := tool.WithAdmissions(context.Background(), []tool.Admission{{Target: capability.MustTarget("127.0.0.1", port), LoopbackPort: port}}, nil)
	return func() {
		id := uuid.New()
		_, art, err := s.PrepareCall(ctx, id, `{"query": "go generics"}`)
		if err != nil {
			b.Fatal(err)
		}
		if res, _ := s.InvokableRun(tool.WithArtifact(ctx, id, art), ""); res.IsError {
			b.Fatal(res.Message)
		}
	}, c.CloseIdleConnections
}

// searchCall returns one call through the broker, as `ocfetch mcp` makes
// it: a workspace with rules allowing the backend's port, the trust
// store and managed policy of testlayers, and the audit log.
func searchCall(b *testing.B, port uint16, base string) (call, done func()) {
	ws := testws.New(b, testws.Spec{Profile: "permissive", LocalPorts: []uint16{port}, Allow: []string{"127.0.0.1:" + strconv.Itoa(int(port))}})
	l := testlayers.New(b, ws)
	be, _ := search.NewSearXNG(base)
	c := egress.NewClient(&egress.Options{Timeout: 10 * time.Second})
	s := search.New(c, be, nil)
	br := &broker.Broker{Scope: &scope.Scope{Workspace: ws, Profile: risk.Permissive, Layers: l.Layers}, Approver: broker.NonInteractive(), Audit: audit.Open(ws)}
	return func() {
		if res := br.Call(context.Background(), s, `{"query": "go generics"}`); res.IsError {
			b.Fatal(res.Message)
		}
	}, c.CloseIdleConnections
}

// benchPublic is a Brave-shaped backend at search.example.com, a loopback
// TLS server reached through testnet, answering 10 results.
func benchPublic(b *testing.B) (*testnet.PublicTLS, testnet.Resolver) {
	var rs []string
	for i := range 10 {
		rs = append(rs, fmt.Sprintf(`{"type": "search_result", "title": "Result number %d of the benchmark", "url": "https://r%d.example/a/page", "description": "%s"}`, i, i, strings.Repeat("snippet text ", 15)))
	}
	body := `{"type": "search", "query": {"original": "q"}, "web": {"type": "search", "results": [` + strings.Join(rs, ",") + `]}}`
	pub := testnet.StartPublicTLS(b, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}), nil)
	b.Cleanup(pub.Server.Close)
	return pub, testnet.Resolver{"search.example.com": {netip.MustParseAddr("93.184.216.34")}}
}

// BenchmarkPlainRoundTripTLS is the baseline of the public path: a plain
// http.Client (http.DefaultTransport's settings, with the same TLS roots
// and the same dial to the loopback server) GET of the same answer, body
// read. Like the tool's client and like http.DefaultClient, it offers
// HTTP/2 (the server answers HTTP/1.1); a bare http.Transport with a TLS
// configuration of its own would offer HTTP/1.1 only, and skip the
// HTTP/2 lookup every request of both other clients makes. Like
// BenchmarkPlainRoundTrip's c.Get and like the tool, it builds its
// request on every call.
func BenchmarkPlainRoundTripTLS(b *testing.B) {
	pub, _ := benchPublic(b)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pub.RootCAs}
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return pub.Dial(ctx, network, "93.184.216.34:443")
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: tr}
	defer c.CloseIdleConnections()
	const u = "https://search.example.com/res/v1/web/search?q=go+generics&count=10"
	b.ReportAllocs()
	start := testcpu.Now()
	for b.Loop() {
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("X-Subscription-Token", braveKey)
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkSearchToolPublic is the tool on that public backend through
// the guarded client (resolve, the public-address check, TLS).
func BenchmarkSearchToolPublic(b *testing.B) {
	pub, dns := benchPublic(b)
	c := egress.NewClient(&egress.Options{Resolver: dns, Dial: pub.Dial, RootCAs: pub.RootCAs, Timeout: 10 * time.Second})
	defer c.CloseIdleConnections()
	be, _ := search.NewBrave("https://search.example.com/res/v1/web/search", braveKey)
	s := search.New(c, be, nil)
	// The broker's part: the public backend's admission, bound.
	ctx := tool.WithAdmissions(context.Background(), []tool.Admission{{Target: capability.MustTarget("search.example.com", 443)}}, nil)
	b.ReportAllocs()
	start := testcpu.Now()
	for b.Loop() {
		id := uuid.New()
		_, art, err := s.PrepareCall(ctx, id, `{"query": "go generics"}`)
		if err != nil {
			b.Fatal(err)
		}
		if res, _ := s.InvokableRun(tool.WithArtifact(ctx, id, art), ""); res.IsError {
			b.Fatal(res.Message)
		}
	}
	b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
}
