package mcpserver

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// reasonPrefix is how every error result's text starts: a reason code.
var reasonPrefix = regexp.MustCompile(`^[a-z_]+: `)

// FuzzHandleArguments feeds the tool handler arbitrary raw arguments, as a
// client could send them. In a workspace with no rules and no interactive
// client nothing may run, so every outcome must be an error result whose
// text starts with a reason code: never a Go error, a nil result or a
// panic. (No rule covers any target, so nothing is ever dialled.)
func FuzzHandleArguments(f *testing.F) {
	for _, s := range []string{
		`{"url": "https://example.com/"}`,                           // valid, not approved
		`{"url": "http://127.0.0.1:8080/"}`,                         // local mode, not permissive
		`{"url": 5}`,                                                // wrong type
		`{"url": "https://example.com/", "x": 1}`,                   // unknown field
		`{"url": "https://a/", "url": "https://b/"}`,                // duplicate key
		`{"url": "https://example.com/", "headers": {"Host": "x"}}`, // forbidden header
		`[]`,                            // not an object
		`null`,                          // null arguments
		``,                              // absent arguments
		`{"url": "https://[::1`,         // truncated JSON
		`{"url": "\ud800"}`,             // lone surrogate
		`{"method": "DELETE"}`,          // no url, bad method
		`{"url": "file:///etc/passwd"}`, // scheme
	} {
		f.Add(s)
	}
	ws := trustedWS(f, testws.Spec{Profile: "standard"})
	s, err := newServer(&Options{Root: ws.Root})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args string) {
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "fetch", Arguments: json.RawMessage(args)}}
		res, err := s.handle(context.Background(), req)
		if err != nil || res == nil {
			t.Fatalf("handle(%q) = %v, %v; want a result", args, res, err)
		}
		txt := text(res)
		if !res.IsError || !reasonPrefix.MatchString(txt) {
			t.Fatalf("handle(%q): isError %v, text %q; want an error result with a reason code", args, res.IsError, txt)
		}
	})
}
