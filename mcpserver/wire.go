package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// encodeOnce is the server's outermost receiving middleware: it hands the
// SDK a tools/call result ([wireResult]) that encoding/json writes in one
// pass, instead of the *mcp.CallToolResult whose MarshalJSON the SDK's
// encoder would run and then scan again. A page's text is thus escaped
// once, not escaped and compacted twice (about a tenth of a stdio call's
// CPU for a 10 KB page), and its <, > and & are sent as such, not as
// \u003c… (the JSON is the same; the line is a quarter shorter for HTML).
// A result wireResult cannot carry exactly (input requests, request state,
// content other than text, a field an SDK release adds) is passed on as
// it is.
func encodeOnce(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil {
			if w, ok := wireResultOf(r); ok {
				return w, nil
			}
		}
		return res, err
	}
}

// wireResult is the JSON of an *mcp.CallToolResult with text content, as
// its MarshalJSON writes it (fields, names and order), as a plain struct.
// TestWireResultIsSDKs holds the two to the same JSON.
type wireResult struct {
	mcp.ResultBase               // _meta, and what makes it an mcp.Result
	Content           []wireText `json:"content"`
	StructuredContent any        `json:"structuredContent,omitempty"`
	IsError           bool       `json:"isError,omitempty"`
	ResultType        string     `json:"resultType,omitempty"`
}

// wireText is the JSON of an *mcp.TextContent (its MarshalJSON's).
type wireText struct {
	Type        string           `json:"type"`
	Text        string           `json:"text"`
	Meta        mcp.Meta         `json:"_meta,omitempty"`
	Annotations *mcp.Annotations `json:"annotations,omitempty"`
}

// wireResultOf returns r as a wireResult; ok is false when r has anything
// wireResult does not carry.
func wireResultOf(r *mcp.CallToolResult) (*wireResult, bool) {
	if r.NeedsInput() || r.InputRequests != nil || r.RequestState != "" {
		return nil, false
	}
	texts := make([]wireText, len(r.Content))
	for i, c := range r.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok {
			return nil, false
		}
		texts[i] = wireText{Type: "text", Text: t.Text, Meta: t.Meta, Annotations: t.Annotations}
	}
	rt, ok := resultTypeOf(r)
	if !ok {
		return nil, false
	}
	w := &wireResult{Content: texts, StructuredContent: r.StructuredContent, IsError: r.IsError, ResultType: rt}
	w.Meta = r.Meta
	return w, true
}

// resultTypeOf returns the resultType the SDK set on r (unexported: it
// depends on the session's protocol), read from the SDK's own encoding of
// r without its content, structured content, _meta and isError. ok is
// false if that encoding has any other member: a field wireResult lacks.
func resultTypeOf(r *mcp.CallToolResult) (resultType string, ok bool) {
	bare := *r
	bare.Meta, bare.Content, bare.StructuredContent, bare.IsError = nil, nil, nil, false
	data, err := bare.MarshalJSON()
	if err != nil {
		return "", false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(data, &members) != nil {
		return "", false
	}
	for name, v := range members {
		switch name {
		case "content": // null
		case "resultType":
			if json.Unmarshal(v, &resultType) != nil {
				return "", false
			}
		default:
			return "", false
		}
	}
	return resultType, true
}
