package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/tool"
)

// countingTool counts the calls of PrepareCall and AuditSummary of the
// Fetch tool it wraps.
type countingTool struct {
	tool.Tool
	prepare, summary *atomic.Int32
}

func (c countingTool) PrepareCall(ctx context.Context, id uuid.UUID, args string) (tool.Request, tool.PreparedArtifact, error) {
	c.prepare.Add(1)
	return c.Tool.PrepareCall(ctx, id, args)
}

func (c countingTool) AuditSummary(args string) string {
	c.summary.Add(1)
	return c.Tool.AuditSummary(args)
}

// TestOnePreparedCallPerRound: on the multi round-trip protocol a call the
// user approves takes two rounds (the question, then the answer) and is
// prepared once, its summary taken from the prepared call (no
// AuditSummary), and its host normalised once — the parse
// (capability.OriginOf) — not by the guard, which dials the target the
// parse made (egress.WithTarget), nor by the audit line's validation (a
// capability.Target is normalised by construction). A
// redirect hop adds one (its Location's parse). A call that needs no
// question is prepared once too. docs/ARCHITECTURE.md's walk-through
// states these counts. Not parallel: the normalisation count is
// process-wide.
func TestOnePreparedCallPerRound(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, pageMarker)
	})
	mux.Handle("/hop", http.RedirectHandler("/page", http.StatusFound))
	srv, port := pageServer(t)
	srv.Config.Handler = mux
	var prepare, summary atomic.Int32
	newTool := func(c *http.Client) tool.Tool {
		return countingTool{Tool: fetch.NewFetch(c, nil), prepare: &prepare, summary: &summary}
	}
	ctx := context.Background()
	once := mcp.InputResponseMap{inputApproval: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}}

	for _, tc := range []struct {
		name   string
		path   string
		ruled  bool // an allow rule covers the target: no question
		rounds int
		norms  int64
	}{
		{"approved by the user", "/page", false, 2, 1},
		{"approved, one redirect hop", "/hop", false, 2, 2},
		// + the rule's own host, parsed when rules.json is first read.
		{"covered by a rule", "/page", true, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var allow []string
			if tc.ruled {
				allow = []string{fmt.Sprintf("127.0.0.1:%d", port)}
			}
			ws := localWorkspace(t, port, allow...)
			ms, err := NewServer(&Options{Root: ws.Root, newTool: newTool})
			if err != nil {
				t.Fatal(err)
			}
			cs := manualClientTo(t, ms)
			prepare.Store(0)
			summary.Store(0)
			count, stop := capability.CountNormalizations()
			defer stop()

			args := json.RawMessage(fmt.Sprintf(`{"url": %q}`, srv.URL+tc.path))
			p := &mcp.CallToolParams{Name: "fetch", Arguments: args}
			rounds := 0
			for {
				rounds++
				res, err := cs.CallTool(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				if !res.NeedsInput() {
					if res.IsError {
						t.Fatalf("round %d: %s; want the page", rounds, text(res))
					}
					break
				}
				if rounds > 2 {
					t.Fatalf("asked %d times; want once", rounds)
				}
				p = &mcp.CallToolParams{Name: "fetch", Arguments: args, InputResponses: once, RequestState: res.RequestState}
			}
			if rounds != tc.rounds || prepare.Load() != 1 || summary.Load() != 0 || count() != tc.norms {
				t.Errorf("%d rounds, PrepareCall %d, AuditSummary %d, NormalizeHost %d; want %d, 1, 0, %d",
					rounds, prepare.Load(), summary.Load(), count(), tc.rounds, tc.norms)
			}
			if lines := auditLines(t, ws); len(lines) != 1 {
				t.Errorf("%d audit lines; want 1", len(lines))
			}
		})
	}
}
