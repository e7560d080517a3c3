package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/trust"
)

// TestMCPTypeScriptClient: a client on the official MCP TypeScript SDK
// (cmd/ocfetch/testdata/mcpclient, installed by .ci/run with its lock
// file) starts `ocfetch mcp` — this test binary under that name — lists
// both tools and calls search, which reaches a SearXNG on loopback
// through local mode. It is skipped, saying why, where node or the SDK
// is absent.
func TestMCPTypeScriptClient(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the test starts the test binary through a symlink named ocfetch")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the TypeScript SDK client test needs node 18 or later")
	}
	clientDir, err := filepath.Abs(filepath.Join("testdata", "mcpclient"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(clientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("the MCP TypeScript SDK is not installed: run `npm ci` in cmd/ocfetch/testdata/mcpclient (.ci/run does)")
	}

	const query = "tsclient-query-7f3a"
	var (
		mu    sync.Mutex
		asked []string
	)
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Query().Get("q"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"query": "x", "number_of_results": 2, "results": [
		  {"url": "https://go.dev/", "title": "The Go Programming Language", "content": "Go is an open source language.", "engine": "e"},
		  {"url": "https://pkg.go.dev/", "title": "Go Packages", "content": "Discover packages.", "engine": "e"}]}`)
	}))
	defer searx.Close()
	port := searx.Listener.Addr().(*net.TCPAddr).Port

	// The child's own configuration directory (trust store, search.json
	// would live there) and a trusted workspace allowing the port.
	home := t.TempDir()
	configDir := filepath.Join(home, ".config")
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".oc_chat"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := strconv.Itoa(port)
	for name, data := range map[string]string{
		"settings.json":    `{"schema_version": 1, "risk_profile": "permissive"}`,
		"local_fetch.json": `{"schema_version": 1, "ports": [` + p + `]}`,
		"rules.json":       `{"schema_version": 1, "rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "127.0.0.1", "port": ` + p + `}, "decision": "allow"}]}`,
	} {
		if err := os.WriteFile(filepath.Join(root, ".oc_chat", name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store, err := trust.Open(&trust.Options{Dir: filepath.Join(configDir, "ocfetch")})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Trust(context.Background(), root, trust.Details{How: "test"}); err != nil {
		t.Fatal(err)
	}

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "ocfetch")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(clientDir, "client.mjs"), bin, "mcp", "--root", root,
		"--search-backend", "searxng", "--search-backend-url", "http://127.0.0.1:"+p)
	cmd.Dir = clientDir
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+configDir, "OCFETCH_TEST_QUERY="+query)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\nstderr:\n%s", err, stderr.String())
	}
	var got struct {
		Tools  []string `json:"tools"`
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Type, Text string
			} `json:"content"`
			Structured struct {
				Backend string `json:"backend"`
				Count   int    `json:"count"`
				Results []struct {
					Rank  int    `json:"rank"`
					URL   string `json:"url"`
					Title string `json:"title"`
				} `json:"results"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output %q: %v", out, err)
	}
	if strings.Join(got.Tools, ",") != "fetch,search" {
		t.Errorf("tools = %v; want fetch and search", got.Tools)
	}
	r := got.Result
	if r.IsError || len(r.Content) == 0 || !strings.Contains(r.Content[0].Text, "1. The Go Programming Language\n   https://go.dev/") {
		t.Errorf("search result = %+v; want the two results as text", r)
	}
	if r.Structured.Backend != "searxng" || r.Structured.Count != 2 || r.Structured.Results[1].URL != "https://pkg.go.dev/" || r.Structured.Results[1].Rank != 2 {
		t.Errorf("structured = %+v", r.Structured)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0] != query {
		t.Errorf("the backend was asked %q; want the one query", asked)
	}
	audit, err := os.ReadFile(filepath.Join(root, ".oc_chat", "audit.jsonl"))
	if err != nil || strings.Contains(string(audit), query) || !strings.Contains(string(audit), `"summary":"GET 127.0.0.1"`) {
		t.Errorf("audit log (%v):\n%s\nwant GET 127.0.0.1 and no query", err, audit)
	}
}
