package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// ocfetchBinary builds ./cmd/ocfetch once per test run.
func ocfetchBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: builds the ocfetch binary")
	}
	binOnce.Do(buildBinary)
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func buildBinary() {
	binDir, binErr = os.MkdirTemp("", "ocfetch-e2e-")
	if binErr != nil {
		return
	}
	binPath = filepath.Join(binDir, "ocfetch")
	out, err := exec.Command("go", "build", "-o", binPath, "github.com/ocfetch/ocfetch/cmd/ocfetch").CombinedOutput()
	if err != nil {
		binErr = fmt.Errorf("go build ./cmd/ocfetch: %v\n%s", err, out)
	}
}

func removeBinary() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

// TestEndToEndStdio starts the built binary as an MCP client would
// (`ocfetch mcp --root DIR` over stdio) and fetches a loopback page through
// local mode, approved "always" by elicitation.
func TestEndToEndStdio(t *testing.T) {
	bin := ocfetchBinary(t)
	srv, port := pageServer(t)
	ws := localWorkspace(t, port)
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			var stderr testio.SyncBuffer
			cmd := exec.Command(bin, "mcp", "--root", ws.Root)
			cmd.Env = append(append(os.Environ(), configEnv()...), "OCFETCH_DEBUG=4")
			cmd.Stderr = &stderr
			user := &elicitor{action: "accept", decision: "always"}
			client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, &mcp.ClientOptions{ElicitationHandler: user.handle})
			cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: proto})
			if err != nil {
				t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
			}
			res := callFetch(t, cs, fmt.Sprintf(`{"url": %q, "format": "text"}`, srv.URL+"/e2e-path?key=v"))
			if res.IsError || !strings.Contains(text(res), pageMarker) {
				t.Errorf("isError %v, text:\n%s\nstderr:\n%s", res.IsError, text(res), stderr.String())
			}
			if res := callFetch(t, cs, `{"url": "http://example.com/"}`); !strings.HasPrefix(text(res), "https_required: ") {
				t.Errorf("http to a public host: %q; want https_required", text(res))
			}
			if err := cs.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			if want := fmt.Sprintf("allow 127.0.0.1:%d", port); !strings.Contains(strings.Join(ruleTargets(t, ws), ","), want) {
				t.Errorf("rules = %v; want %s saved by the \"always\" answer", ruleTargets(t, ws), want)
			}
			if s := stderr.String(); strings.Contains(s, "e2e-path") || strings.Contains(s, "key=v") {
				t.Errorf("stderr holds the path or query:\n%s", s)
			}
		})
	}
	lines := auditLines(t, ws)
	if len(lines) != 4 {
		t.Errorf("audit has %d lines; want 4 (two calls on each protocol)", len(lines))
	}
}

// TestEndToEndHTTP starts `ocfetch mcp --http 127.0.0.1:0`, learns the port
// from its stderr and fetches over streamable HTTP.
func TestEndToEndHTTP(t *testing.T) {
	bin := ocfetchBinary(t)
	srv, port := pageServer(t)
	ws := localWorkspace(t, port, fmt.Sprintf("127.0.0.1:%d", port))

	tokenFile := filepath.Join(t.TempDir(), "cfg", "mcp-token")
	cmd := exec.Command(bin, "mcp", "--root", ws.Root, "--http", "127.0.0.1:0", "--token-file", tokenFile)
	cmd.Env = append(os.Environ(), configEnv()...)
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	var rest testio.SyncBuffer
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderrPipe)
		for sc.Scan() {
			line := sc.Text()
			if a, ok := strings.CutPrefix(line, "ocfetch mcp: serving streamable HTTP on "); ok {
				addrc <- a
				continue
			}
			rest.Write([]byte(line + "\n"))
		}
		io.Copy(io.Discard, stderrPipe)
		exited <- cmd.Wait()
	}()
	var endpoint string
	select {
	case endpoint = <-addrc:
	case err := <-exited:
		t.Fatalf("ocfetch mcp --http exited: %v\n%s", err, rest.String())
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatal("ocfetch mcp --http did not say where it listens")
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Error("ocfetch mcp --http did not stop on SIGTERM")
		}
	})

	fi, err := os.Stat(tokenFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, %v; want mode 0600", err, fi)
	}
	token, err := LoadOrCreateToken(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	want := `--header "Authorization: Bearer $(cat ` + tokenFile + `)"`
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(rest.String(), want) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(rest.String(), want) {
		t.Errorf("start message does not show the Claude Code snippet reading the token file:\n%s", rest.String())
	}
	if strings.Contains(rest.String(), token) {
		t.Errorf("start message shows the token itself (it belongs in the 0600 file only):\n%s", rest.String())
	}
	resp, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a request without the token: %s; want 401", resp.Status)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-http", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1, HTTPClient: authClient(token)}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", endpoint, err)
	}
	defer cs.Close()
	res := callFetch(t, cs, fmt.Sprintf(`{"url": %q}`, srv.URL))
	if res.IsError || !strings.Contains(text(res), pageMarker) {
		t.Errorf("isError %v, text:\n%s", res.IsError, text(res))
	}
	if res := callFetch(t, cs, `{"url": "https://example.com/", "headers": "x"}`); !strings.HasPrefix(text(res), "invalid_arguments: ") {
		t.Errorf("malformed headers: %q; want invalid_arguments", text(res))
	}
}

func TestEndToEndRefusesPublicBind(t *testing.T) {
	bin := ocfetchBinary(t)
	ws := trustedWS(t, testws.Spec{})
	out, err := exec.Command(bin, "mcp", "--root", ws.Root, "--http", "0.0.0.0:0",
		"--token-file", filepath.Join(t.TempDir(), "mcp-token")).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("ocfetch mcp --http 0.0.0.0:0: %v; want exit status 2\n%s", err, out)
	}
	if !strings.Contains(string(out), "loopback") {
		t.Errorf("output %q; want it to say loopback", out)
	}
}

// TestEndToEndStdoutIsProtocolOnly runs the binary at the highest
// verbosity and checks that its stdout carries JSON-RPC messages only, the
// diagnostics going to stderr.
func TestEndToEndStdoutIsProtocolOnly(t *testing.T) {
	bin := ocfetchBinary(t)
	srv, port := pageServer(t)
	ws := localWorkspace(t, port, fmt.Sprintf("127.0.0.1:%d", port))
	cmd := exec.Command(bin, "mcp", "--root", ws.Root)
	cmd.Env = append(append(os.Environ(), configEnv()...), "OCFETCH_DEBUG=4")
	var stderr testio.SyncBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	tee := &lineTee{r: bufio.NewReader(stdout), lines: &lines}
	c := &rawClient{t: t, in: stdin, out: bufio.NewReader(tee)}
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	c.await("1", nil)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch","arguments":{"url":%q}}}`, srv.URL+"/secret?k=v"))
	c.await("2", nil)
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fetch","arguments":{"url":7}}}`)
	c.await("3", nil)
	stdin.Close()
	rest, _ := io.ReadAll(stdout)
	if err := cmd.Wait(); err != nil {
		t.Errorf("ocfetch mcp exited with %v after stdin closed; want 0\n%s", err, stderr.String())
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		lines = append(lines, strings.Split(strings.TrimSpace(string(rest)), "\n")...)
	}
	for i, l := range lines {
		var m struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.JSONRPC != "2.0" {
			t.Errorf("stdout line %d is not a JSON-RPC message: %.200q", i, l)
		}
	}
	if len(lines) < 3 {
		t.Errorf("stdout has %d lines; want the three responses", len(lines))
	}
	if stderr.String() == "" {
		t.Error("stderr is empty at OCFETCH_DEBUG=4; want the diagnostics there")
	}
	if s := stderr.String(); strings.Contains(s, "secret") || strings.Contains(s, "k=v") {
		t.Errorf("stderr holds the path or query:\n%s", s)
	}
}

// lineTee passes lines through and records them.
type lineTee struct {
	r     *bufio.Reader
	lines *[]string
	buf   []byte
}

func (l *lineTee) Read(p []byte) (int, error) {
	if len(l.buf) == 0 {
		line, err := l.r.ReadBytes('\n')
		if len(line) > 0 {
			*l.lines = append(*l.lines, strings.TrimRight(string(line), "\n"))
			l.buf = line
		}
		if len(l.buf) == 0 {
			return 0, err
		}
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}
