package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/search"
	"github.com/ocfetch/ocfetch/tool"
)

// The search tool beside fetch (issue 24): served when Options.Search
// names a backend, through the same handler as fetch (a Broker per call,
// the same decision step, elicitation and audit), with a guarded client of
// its own that has no response cache (a query's answer is not a page to
// keep).

// addSearch registers the search tool on ms when a backend is configured.
func (s *server) addSearch(ms *mcp.Server) error {
	if s.opts.Search == nil {
		return nil
	}
	eo := egress.Options{Timeout: search.DefaultTimeout}
	if s.opts.Egress != nil {
		eo = *s.opts.Egress
	}
	if eo.Logger == nil {
		eo.Logger = s.opts.Logger
	}
	eo.Timeout = max(eo.Timeout, search.DefaultTimeout)
	client := egress.NewClient(&eo)
	backend := s.opts.Search
	newTool := func(*http.Client) tool.Tool {
		return search.New(client, backend, &search.Options{
			UserAgent: cmpOr(s.opts.UserAgent, userAgent(s.opts.Version)), Logger: s.opts.Logger})
	}
	info, err := newTool(nil).Info(context.Background())
	if err != nil {
		return fmt.Errorf("mcpserver: search tool info: %w", err)
	}
	ms.AddTool(&mcp.Tool{
		Name:         info.Name,
		Title:        "Search the web",
		Description:  info.Description,
		InputSchema:  info.InputSchema,
		OutputSchema: searchOutputSchema,
		Annotations: &mcp.ToolAnnotations{
			Title:         "Search the web",
			ReadOnlyHint:  true,
			OpenWorldHint: ptr(true),
		},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.serveTool(ctx, req, newTool)
	})
	return nil
}

// searchOutput returns the structured content of a search result.
func searchOutput(v any) (search.Output, bool) {
	o, ok := v.(search.Output)
	if ok && o.Results == nil {
		o.Results = []search.Hit{}
	}
	return o, ok
}

// searchOutputSchema is the JSON Schema of [search.Output].
var searchOutputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "backend": {"type": "string", "enum": ["searxng", "brave", "tavily"], "description": "The search backend that answered."},
    "host": {"type": "string", "description": "The backend's host."},
    "count": {"type": "integer", "minimum": 0, "description": "Number of results."},
    "results": {"type": "array", "items": {
      "type": "object",
      "properties": {
        "rank": {"type": "integer", "minimum": 1},
        "title": {"type": "string"},
        "url": {"type": "string", "description": "The result's URL (not fetched: call fetch to read it)."},
        "snippet": {"type": "string"}
      },
      "required": ["rank", "title", "url", "snippet"],
      "additionalProperties": false
    }},
    "dropped": {"type": "integer", "minimum": 0, "description": "Results left out because their URL is not an absolute http(s) URL."}
  },
  "required": ["backend", "host", "count", "results"],
  "additionalProperties": false
}`)
