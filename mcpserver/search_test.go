package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocfetch/ocfetch/search"
)

// TestSearchTool: with a backend configured the server lists fetch and
// search, and a search call goes through the same decision (here local
// mode and an allow rule for the loopback SearXNG) and comes back as text
// plus structured content matching the declared output schema.
func TestSearchTool(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"query": "q", "results": [{"url": "https://go.dev/", "title": "Go", "content": "The Go language"}]}`)
	}))
	defer srv.Close()
	port := uint16(srv.Listener.Addr().(*net.TCPAddr).Port)
	be, err := search.NewSearXNG("http://127.0.0.1:" + strconv.Itoa(int(port)))
	if err != nil {
		t.Fatal(err)
	}
	ws := localWorkspace(t, port, "127.0.0.1:"+strconv.Itoa(int(port)))
	cs := connect(t, &Options{Root: ws.Root, Search: be}, clientSpec{})

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var schema json.RawMessage
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Name == "search" {
			schema, _ = json.Marshal(tl.OutputSchema)
		}
	}
	if strings.Join(names, ",") != "fetch,search" && strings.Join(names, ",") != "search,fetch" {
		t.Fatalf("tools = %v; want fetch and search", names)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: json.RawMessage(`{"query": "golang"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(text(res), "1. Go\n   https://go.dev/\n   The Go language") {
		t.Fatalf("result %v: %s", res.IsError, text(res))
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var v map[string]any
	_ = json.Unmarshal(raw, &v)
	if err := rs.Validate(v); err != nil {
		t.Errorf("structured content %s does not match the output schema: %v", raw, err)
	}
	lines := auditLines(t, ws)
	if last := lines[len(lines)-1]; last["tool"] != "search" || last["summary"] != "GET 127.0.0.1" || strings.Contains(fmt.Sprint(last), "golang") {
		t.Errorf("audit line %v", last)
	}

	// Without a rule for the backend, nobody to ask: not_approved.
	bare := localWorkspace(t, port)
	cs2 := connect(t, &Options{Root: bare.Root, Search: be}, clientSpec{})
	res, err = cs2.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: json.RawMessage(`{"query": "golang"}`)})
	if err != nil || !res.IsError || !strings.HasPrefix(text(res), "not_approved") {
		t.Errorf("uncovered backend: %v %s; want not_approved", err, text(res))
	}
}

func TestNoSearchWithoutBackend(t *testing.T) {
	cs := connect(t, &Options{Root: t.TempDir()}, clientSpec{})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "fetch" {
		t.Errorf("tools = %v (%v); want fetch alone", tools, err)
	}
}
