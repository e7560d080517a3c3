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
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocfetch/ocfetch/search"
)

// TestStateIsBoundToTheTool: on the multi round-trip protocol, the state
// sealed for one tool's question is no state for a call of the other tool
// with the same arguments: that call is not run as the first tool's call
// (the prepared call kept under the state's nonce), and the state stays
// answerable for its own tool.
func TestStateIsBoundToTheTool(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `{"query": "q", "results": [{"url": "https://go.dev/", "title": "Go", "content": "The Go language"}]}`)
	}))
	defer srv.Close()
	port := uint16(srv.Listener.Addr().(*net.TCPAddr).Port)
	be, err := search.NewSearXNG("http://127.0.0.1:" + strconv.Itoa(int(port)))
	if err != nil {
		t.Fatal(err)
	}
	once := mcp.InputResponseMap{inputApproval: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}}
	tests := []struct {
		asked, then string // the tool asked about, the tool called with its state
		args        string // the arguments of both calls
	}{
		{"search", "fetch", `{"query": "golang"}`},
		{"fetch", "search", fmt.Sprintf(`{"url": "http://127.0.0.1:%d/"}`, port)},
	}
	for _, tc := range tests {
		t.Run(tc.asked+" then "+tc.then, func(t *testing.T) {
			hits.Store(0)
			ws := localWorkspace(t, port)
			ms, err := NewServer(&Options{Root: ws.Root, Search: be})
			if err != nil {
				t.Fatal(err)
			}
			cs := manualClientTo(t, ms)
			ctx := context.Background()
			args := json.RawMessage(tc.args)
			first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.asked, Arguments: args})
			if err != nil || !first.NeedsInput() {
				t.Fatalf("first call: %v, %s; want an approval request", err, text(first))
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.then, Arguments: args, InputResponses: once, RequestState: first.RequestState})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.HasPrefix(text(res), "invalid_arguments: ") || hits.Load() != 0 {
				t.Errorf("%s with %s's state: isError %v, %q, %d requests sent; want invalid_arguments and nothing sent", tc.then, tc.asked, res.IsError, text(res), hits.Load())
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.asked, Arguments: args, InputResponses: once, RequestState: first.RequestState})
			if err != nil || res.IsError || res.NeedsInput() || hits.Load() != 1 {
				t.Errorf("%s with its own state: %v, isError %v, %q; want it run once", tc.asked, err, res.IsError, text(res))
			}
		})
	}
}
