package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/ocfetch/ocfetch/scope"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/internal/testsupport/testcpu"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testpage"
	"github.com/ocfetch/ocfetch/risk"
)

// BenchmarkRoundTrip measures one fetch of a small loopback page (local
// mode, allowed by a saved rule, one audit line each) four ways:
//
//   - library: broker.Call with the fetch tool, as `ocfetch get` runs it;
//   - mcp-inmemory: the same call through the MCP server and the SDK client
//     over in-memory transports (the client declares no elicitation);
//   - mcp-inmemory-elicitation-client: the same with a client that declares
//     elicitation (never asked: a rule covers the target);
//   - mcp-stdio: through Serve's stdio transport over OS pipes, in process;
//   - mcp-stdio-process: through the built binary (`ocfetch mcp`) over its
//     stdin/stdout, as an MCP client runs it.
//
// The MCP layer's cost is the difference from library.
//
//	go test -run '^$' -bench BenchmarkRoundTrip -benchmem ./mcpserver
func BenchmarkRoundTrip(b *testing.B) {
	srv, port := pageServer(b)
	ws := localWorkspace(b, port, fmt.Sprintf("127.0.0.1:%d", port))
	args := fmt.Sprintf(`{"url": %q}`, srv.URL+"/page")
	ctx := context.Background()

	check := func(b *testing.B, res *mcp.CallToolResult) {
		if res.IsError {
			b.Fatalf("error result: %s", text(res))
		}
	}

	b.Run("library", func(b *testing.B) {
		client := egress.NewClient(&egress.Options{Timeout: DefaultFetchTimeout})
		defer client.CloseIdleConnections()
		layers := testlayers.New(b, ws).Layers
		b.ReportAllocs()
		for b.Loop() {
			// As `ocfetch get` and the MCP server do for every call.
			profile, err := risk.Resolve(ws, "")
			if err != nil {
				b.Fatal(err)
			}
			t := fetch.NewFetch(client, nil)
			br := &broker.Broker{Scope: &scope.Scope{Workspace: ws, Profile: profile, Layers: layers}, Approver: broker.NonInteractive(), Audit: audit.Open(ws)}
			if res := br.Call(ctx, t, args); res.IsError {
				b.Fatalf("error result: %s", res.Content)
			}
		}
	})

	b.Run("mcp-inmemory", func(b *testing.B) {
		cs := connect(b, &Options{Root: ws.Root}, clientSpec{})
		b.ReportAllocs()
		for b.Loop() {
			check(b, callFetch(b, cs, args))
		}
	})

	// A client that declares elicitation: on the multi round-trip protocol
	// the server first runs the broker's decision dry, to know whether it
	// must ask, before the real call.
	b.Run("mcp-inmemory-elicitation-client", func(b *testing.B) {
		cs := connect(b, &Options{Root: ws.Root}, clientSpec{elicit: &elicitor{action: "decline"}})
		b.ReportAllocs()
		for b.Loop() {
			check(b, callFetch(b, cs, args))
		}
	})

	b.Run("mcp-stdio", func(b *testing.B) {
		c2sW, s2cR, done := serveOverPipes(b, &Options{Root: ws.Root})
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil)
		cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: s2cR, Writer: c2sW}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			check(b, callFetch(b, cs, args))
		}
		b.StopTimer()
		cs.Close()
		if err := <-done; err != nil {
			b.Errorf("Serve: %v", err)
		}
	})

	b.Run("mcp-stdio-process", func(b *testing.B) {
		if testing.Short() {
			b.Skip("builds the binary")
		}
		bin := ocfetchBinaryB(b)
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "mcp", "--root", ws.Root)}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		b.ReportAllocs()
		for b.Loop() {
			check(b, callFetch(b, cs, args))
		}
	})
}

// ocfetchBinaryB is ocfetchBinary for benchmarks.
func ocfetchBinaryB(b *testing.B) string {
	b.Helper()
	binOnce.Do(buildBinary)
	if binErr != nil {
		b.Fatal(binErr)
	}
	return binPath
}

// BenchmarkStdioCall measures one tools/call as bench/mcpstdio makes it:
// a raw 10 KB HTML page on loopback (a new URL each call), fetched through
// Serve's stdio transport over OS pipes, by the lines the MCP TypeScript
// SDK client sends (protocol 2025-11-25, no _meta), each response read as
// one line. cpu-ns/op is the whole process's: server, page server and this
// client.
//
//	go test -run '^$' -bench BenchmarkStdioCall -benchmem ./mcpserver
func BenchmarkStdioCall(b *testing.B) {
	body := string(testpage.TenKB())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	port, _ := strconv.ParseUint(u.Port(), 10, 16)
	ws := localWorkspace(b, uint16(port), u.Host)

	c2sW, s2cR, done := serveOverPipes(b, &Options{Root: ws.Root})
	defer s2cR.Close()
	out := bufio.NewReaderSize(s2cR, 64<<10)
	roundTrip := func(line string) []byte {
		if _, err := c2sW.WriteString(line + "\n"); err != nil {
			b.Fatal(err)
		}
		resp, err := out.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		return resp
	}
	roundTrip(`{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0.0.0"}},"jsonrpc":"2.0","id":0}`)
	if _, err := c2sW.WriteString(`{"method":"notifications/initialized","jsonrpc":"2.0"}` + "\n"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	id := 0
	start := testcpu.Now()
	for b.Loop() {
		id++
		resp := roundTrip(fmt.Sprintf(`{"method":"tools/call","params":{"name":"fetch","arguments":{"url":"%s/page?call=%d","format":"raw"}},"jsonrpc":"2.0","id":%d}`, srv.URL, id, id))
		if !bytes.Contains(resp, []byte("The quick brown fox")) || bytes.Contains(resp, []byte(`"isError":true`)) {
			b.Fatalf("response %.300s", resp)
		}
	}
	b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
	b.StopTimer()
	c2sW.Close()
	if err := <-done; err != nil {
		b.Errorf("Serve: %v", err)
	}
}

// serveOverPipes runs Serve(opts) on OS pipes and returns the client's
// ends; done receives Serve's error once the client closes toServer.
func serveOverPipes(b *testing.B, opts *Options) (toServer, fromServer *os.File, done <-chan error) {
	b.Helper()
	c2sR, c2sW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	s2cR, s2cW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	opts.Stdin, opts.Stdout = c2sR, s2cW
	errc := make(chan error, 1)
	go func() {
		err := Serve(context.Background(), opts)
		s2cW.Close()
		errc <- err
	}()
	return c2sW, s2cR, errc
}
