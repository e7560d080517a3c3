package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// TestMCPStdio serves `ocfetch mcp` over a pair of pipes and calls its fetch
// tool with the SDK's client.
func TestMCPStdio(t *testing.T) {
	s := newSite(t)
	root := localRoot(t, s)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr testio.SyncBuffer
	a := newApp(inR, outW, &stderr)
	a.layers = testLayers(t)
	done := make(chan int, 1)
	go func() {
		code := execute(context.Background(), a, []string{"--root", root, "--profile", "permissive", "mcp"})
		outW.Close()
		done <- code
	}()

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "ocfetch-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if got := cs.InitializeResult().ServerInfo.Version; got != plainVersion() {
		t.Errorf("the server reports version %q; want the plain version %q", got, plainVersion())
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "fetch" {
		t.Fatalf("tools/list = %+v, %v; want the one tool fetch", tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"url": s.url("/")}})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError || !strings.Contains(text.String(), "The gate opens at **six**.") {
		t.Errorf("fetch over MCP = error %v, %q; want the page as Markdown", res.IsError, text.String())
	}
	cs.Close()
	inW.Close()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("ocfetch mcp exit %d; want 0 when the client goes away\nstderr: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ocfetch mcp did not stop when the client closed stdin")
	}
	// The call went through the broker: it is in the audit log.
	r := ocfetch(t, cliOptions{}, "--root", root, "audit", "--json")
	if !strings.Contains(r.stdout, `"summary":"GET 127.0.0.1"`) || !strings.Contains(r.stdout, `"outcome":"ok"`) {
		t.Errorf("audit after the MCP call:\n%s", r.stdout)
	}
}

func TestServersBadInput(t *testing.T) {
	root := newRoot(t)
	badCreds := filepath.Join(t.TempDir(), "creds")
	if err := os.WriteFile(badCreds, []byte("no colon here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"mcp", "--http", "0.0.0.0:0"},
		{"mcp", "--http", "192.0.2.1:8080"},
		{"proxy", "--listen", "0.0.0.0:0"},
		{"proxy", "--listen", ":3128"},
		{"mcp", "--http", "127.0.0.1:99999"},
		{"proxy", "--listen", "127.0.0.1:abc"},
		{"mcp", "--http", "localhost"},
		{"mcp", "--root", "/nonexistent/dir"},
		{"proxy", "--root", "/nonexistent/dir", "--listen", "127.0.0.1:0"},
		{"proxy", "--listen", "127.0.0.1:0", "--auth", "maybe"},
		{"proxy", "--listen", "127.0.0.1:0", "--auth", "none", "--auth-file", "x"},
		{"proxy", "--listen", "127.0.0.1:0", "--auth-file", t.TempDir()},
		{"proxy", "--listen", "127.0.0.1:0", "--auth-file", badCreds},
		{"mcp", "--http", "127.0.0.1:0", "--token-file", t.TempDir()},
		{"mcp", "--http", "127.0.0.1:0", "--token-file", badCreds},
	} {
		r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, args...)...)
		r.want(t, exitUsage, nil, []string{"\nhint: "})
		if strings.Contains(r.stderr, "mcpserver:") || strings.Contains(r.stderr, "proxy:") {
			t.Errorf("ocfetch %v: stderr %q names a Go package; want the address and the fix", args, r.stderr)
		}
		if !strings.Contains(r.stderr, "loopback") && !strings.Contains(r.stderr, "/nonexistent/dir") && !strings.Contains(r.stderr, "--auth") && !strings.Contains(r.stderr, "--token-file") &&
			!strings.Contains(r.stderr, "0 to 65535") && !strings.Contains(r.stderr, "is not HOST:PORT") {
			t.Errorf("ocfetch %v: stderr %q names neither loopback nor the root", args, r.stderr)
		}
	}
}

// TestProxy runs `ocfetch proxy` on a free loopback port, sends one
// admitted and one refused request through it with the credentials it
// created, one without them (407, nothing forwarded), and stops it as
// SIGINT would (by cancelling its context).
func TestProxy(t *testing.T) {
	s := newSite(t)
	other := newSite(t)
	root := localRoot(t, s)
	var stdout, stderr testio.SyncBuffer
	a := newApp(strings.NewReader(""), &stdout, &stderr)
	a.layers = testLayers(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	credFile := filepath.Join(t.TempDir(), "ocfetch", "proxy-credentials")
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, a, []string{"--root", root, "--profile", "permissive", "proxy", "--listen", "127.0.0.1:0", "--auth-file", credFile})
	}()

	listening := regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)
	var proxyURL string
	for deadline := time.Now().Add(5 * time.Second); proxyURL == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			proxyURL = m[1]
		}
	}
	if proxyURL == "" {
		t.Fatalf("the proxy did not say where it listens; stderr:\n%s", stderr.String())
	}
	creds, err := os.ReadFile(credFile)
	if err != nil {
		t.Fatalf("the proxy did not create its credentials file: %v\nstderr:\n%s", err, stderr.String())
	}
	if fi, _ := os.Stat(credFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("credentials file mode %v; want 0600", fi.Mode())
	}
	if strings.Contains(stderr.String(), strings.TrimSpace(string(creds))) || !strings.Contains(stderr.String(), "$(cat "+credFile+")@"+proxyURL) {
		t.Errorf("stderr must tell how to use the file without printing the password:\n%s", stderr.String())
	}
	noAuth := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: proxyURL})}, Timeout: 5 * time.Second}
	defer noAuth.CloseIdleConnections()
	resp, err := noAuth.Get(s.url("/"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusProxyAuthRequired || len(s.requests()) != 0 {
		t.Errorf("without credentials: %d and %d requests forwarded; want 407 and none", resp.StatusCode, len(s.requests()))
	}
	pu, _ := url.Parse("http://" + strings.TrimSpace(string(creds)) + "@" + proxyURL)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}, Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()

	resp, err = client.Get(s.url("/"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<title>Harbour</title>") {
		t.Errorf("admitted request: %d %q; want 200 and the page", resp.StatusCode, body)
	}

	resp, err = client.Get(other.url("/"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("X-Ocfetch-Reason"); resp.StatusCode != http.StatusForbidden || got != "local_port_not_allowed" {
		t.Errorf("refused request: %d, X-Ocfetch-Reason %q; want 403 local_port_not_allowed", resp.StatusCode, got)
	}
	if n := len(other.requests()); n != 0 {
		t.Errorf("the refused target got %d requests", n)
	}

	cancel()
	select {
	case code := <-done:
		if code != exitOK || !strings.Contains(stderr.String(), "ocfetch proxy: stopped") {
			t.Errorf("proxy exit %d; want 0 and a stop line\nstderr:\n%s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not stop")
	}
	r := ocfetch(t, cliOptions{}, "--root", root, "audit", "--json")
	if n := strings.Count(r.stdout, "\n"); n != 3 {
		t.Errorf("audit has %d lines after three proxied requests; want 3:\n%s", n, r.stdout)
	}
}

func TestRun(t *testing.T) {
	root := newRoot(t)
	if err := testws.GiveToSandboxUser(root); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"run", "--", "sh", "-c", "exit 7"}, 7},
		{[]string{"run", "sh", "-c", `case "$HTTPS_PROXY" in http://ocfetch:*@127.0.0.1:*) exit 0;; *) exit 9;; esac`}, 0},
		{[]string{"run", "sh", "-c", `case "$ALL_PROXY" in socks5h://ocfetch:*@127.0.0.1:*) exit 0;; *) exit 9;; esac`}, 0},
		{[]string{"run", "--no-sandbox", "--", "sh", "-c", "exit 5"}, 5},
		{[]string{"run", "--", "sh", "-c", `test "$HTTP_PROXY" = "$https_proxy" && test -z "$NO_PROXY"`}, 0},
		{[]string{"run", "--", "/nonexistent/command"}, 127},
		{[]string{"run", "--deny-unix-sockets", "--", "sh", "-c", "exit 4"}, 4},
		{[]string{"run", "--deny-unix-sockets", "--no-sandbox", "--", "true"}, exitUsage},
		{[]string{"run"}, exitUsage},
		{[]string{"run", "--"}, exitUsage},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.args), func(t *testing.T) {
			r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, tc.args...)...)
			if r.code != tc.code {
				t.Errorf("exit %d; want %d\nstderr:\n%s", r.code, tc.code, r.stderr)
			}
		})
	}
}

// TestMCPMaxSessionsFlag: the session cap of mcp --http is a flag shown in
// --help with its default; a cap below 1 is a usage error naming it.
func TestMCPMaxSessionsFlag(t *testing.T) {
	ocfetch(t, cliOptions{}, "mcp", "--help").
		want(t, exitOK, []string{"--max-sessions N", "closes the least recently used idle session", "(default 256)"}, nil)
	for _, v := range []string{"0", "-1"} {
		ocfetch(t, cliOptions{}, "mcp", "--http", "127.0.0.1:0", "--max-sessions", v).
			want(t, exitUsage, nil, []string{"ocfetch: --max-sessions must be positive, not " + v, "hint: use --max-sessions 256"})
	}
}

// TestMCPBadProfile: a --profile that is no profile is a usage error
// (exit 2) naming it, with --root or without (the server then takes the
// client's root): never exit 3, which says a policy refused something.
func TestMCPBadProfile(t *testing.T) {
	root := newRoot(t)
	for _, args := range [][]string{
		{"--profile", "lax", "mcp"},
		{"--root", root, "--profile", "lax", "mcp"},
	} {
		r := ocfetch(t, cliOptions{}, args...)
		r.want(t, exitUsage, nil, []string{`risk profile "lax" is not one of strict, standard, permissive`, "\nhint: "})
		if r.stdout != "" {
			t.Errorf("ocfetch %v: stdout = %q; want nothing (no server was started)", args, r.stdout)
		}
	}
}

// TestMCPHTTPTokenFileMode: the start line says who can read the token
// file, true of the 0400 file a user made as of the 0600 one ocfetch
// creates — never a mode the file does not have.
func TestMCPHTTPTokenFileMode(t *testing.T) {
	root := newRoot(t)
	for _, mode := range []os.FileMode{0o400, 0o600} {
		t.Run(mode.String(), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "mcp-token")
			if err := os.WriteFile(file, []byte("0123456789abcdefghijklmnop\n"), mode); err != nil {
				t.Fatal(err)
			}
			var stderr testio.SyncBuffer
			a := newApp(strings.NewReader(""), io.Discard, &stderr)
			a.layers = testLayers(t)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan int, 1)
			go func() {
				done <- execute(ctx, a, []string{"--root", root, "mcp", "--http", "127.0.0.1:0", "--token-file", file})
			}()
			for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stderr.String(), "TOKEN is in"); time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					cancel()
					t.Fatalf("no start line; stderr:\n%s", stderr.String())
				}
			}
			cancel()
			<-done
			out := stderr.String()
			if !strings.Contains(out, "TOKEN is in "+file+" (readable by you only)") || strings.Contains(out, "mode 0600") {
				t.Errorf("start line for a %v token file:\n%s\nwant it to say the file is readable by you only, and no mode it may not have", mode, out)
			}
		})
	}
}
