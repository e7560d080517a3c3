package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/tool"
)

// encodeAsSDK encodes v as the SDK's JSON-RPC layer does a result
// (encoding/json, no HTML escaping) and decodes it into plain values.
func encodeAsSDK(t *testing.T, v any) (any, []byte) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	var plain any
	if err := json.Unmarshal(buf.Bytes(), &plain); err != nil {
		t.Fatal(err)
	}
	return plain, bytes.TrimSpace(buf.Bytes())
}

// TestWireResultIsSDKs: a result encodeOnce hands over encodes to the same
// JSON as the *mcp.CallToolResult it stands for; what it cannot carry is
// passed on as it is.
func TestWireResultIsSDKs(t *testing.T) {
	page := "<!doctype html><p>a & b < c > d \"q\" \u2028 \x01 é</p>"
	out, _ := outputFrom(fetch.Output{Status: 200, URL: "http://127.0.0.1:8080/p?a=1&b=<2>", Headers: map[string]string{"content-type": "text/html"}, Format: "raw", Bytes: 42, Title: "T & <t>"})
	converted := []struct {
		name string
		r    *mcp.CallToolResult
	}{
		{"page with structured content", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: page}}, StructuredContent: out}},
		{"refusal", errorResult(&tool.Result{IsError: true, Reason: refusal.NotApproved, Message: "no <rule> & no answer", Hint: "ask"})},
		{"off-target redirect", errorResult(&tool.Result{IsError: true, Reason: refusal.RedirectOffTarget, Message: "m", RedirectTo: "https://other.example/?a=1&b=<2>", Structured: fetch.Output{Status: 302, URL: "http://127.0.0.1:8080/", Headers: map[string]string{}, Format: "raw", RedirectTo: "https://other.example/?a=1&b=<2>"}})},
		{"audit failure note", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: page}, &mcp.TextContent{Text: "audit_unavailable: x"}}, Meta: mcp.Meta{"ocfetch/audit": "audit_unavailable"}, StructuredContent: out}},
		{"text meta and annotations", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "", Meta: mcp.Meta{"k": []any{1.5, "v"}}, Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, Priority: 0.5}}}}},
		{"no content", &mcp.CallToolResult{Content: []mcp.Content{}}},
	}
	for _, tc := range converted {
		t.Run(tc.name, func(t *testing.T) {
			w, ok := wireResultOf(tc.r)
			if !ok {
				t.Fatal("wireResultOf: not converted")
			}
			want, _ := encodeAsSDK(t, tc.r)
			got, raw := encodeAsSDK(t, w)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("JSON differs from the SDK's (-sdk +wire):\n%s", diff)
			}
			if bytes.Contains(raw, []byte(`\u003c`)) {
				t.Errorf("wire JSON escapes HTML: %s", raw)
			}
		})
	}
	kept := []struct {
		name string
		r    *mcp.CallToolResult
	}{
		//lint:ignore SA1019 a roots input request is a result the wire form must pass on as it is (roots are deprecated by SEP-2577, still functional)
		{"input requests", &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{inputRoots: &mcp.ListRootsParams{}}, RequestState: "s"}},
		{"request state", &mcp.CallToolResult{Content: []mcp.Content{}, RequestState: "s"}},
		{"image content", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte("x"), MIMEType: "image/png"}}}},
	}
	for _, tc := range kept {
		t.Run(tc.name, func(t *testing.T) {
			if w, ok := wireResultOf(tc.r); ok {
				t.Errorf("wireResultOf = %+v; want the result passed on as it is", w)
			}
		})
	}
}

// TestWireResultOnBothProtocols: through a real session, a delivered
// result reaches the client whole on the legacy protocol and on the multi
// round-trip one, whose results carry resultType "complete" (read by the
// SDK client: a result without it would be taken for complete too, so the
// raw line is checked).
func TestWireResultOnBothProtocols(t *testing.T) {
	srv, port := pageServer(t)
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			ws := localWorkspace(t, port, fmt.Sprintf("127.0.0.1:%d", port))
			s := startStdio(t, &Options{Root: ws.Root}, proto)
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fetch","arguments":{"url":%q,"format":"raw"}}}`, srv.URL+"/p?a=1&b=2"))
			m := s.await("7", nil)
			var res struct {
				Content []struct {
					Type, Text string
				}
				StructuredContent struct {
					Status int
					URL    string
				}
				IsError    bool
				ResultType *string
			}
			if err := json.Unmarshal(m.Result, &res); err != nil {
				t.Fatalf("result %s: %v", m.Result, err)
			}
			if res.IsError || len(res.Content) != 1 || res.Content[0].Type != "text" || !bytes.Contains([]byte(res.Content[0].Text), []byte("<title>Hello page</title>")) {
				t.Errorf("result = %+v; want the page's raw text", res)
			}
			if res.StructuredContent.Status != 200 || res.StructuredContent.URL != srv.URL+"/p?a=1&b=2" {
				t.Errorf("structured content = %+v", res.StructuredContent)
			}
			wantType := ""
			if proto >= protocolMultiRoundTrip {
				wantType = "complete"
			}
			if got := ""; res.ResultType != nil {
				got = *res.ResultType
				if got != wantType {
					t.Errorf("resultType = %q; want %q", got, wantType)
				}
			} else if wantType != "" {
				t.Errorf("no resultType; want %q", wantType)
			}
			s.stdin.Close()
		})
	}
}
