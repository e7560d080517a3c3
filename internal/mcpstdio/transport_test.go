package mcpstdio

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestAppendMessageIsEncodeMessage: the stdio transport's encoding of a
// message is the SDK's (jsonrpc.EncodeMessage) as JSON, whether it writes
// a result around the SDK's bytes or hands the message to the SDK.
func TestAppendMessageIsEncodeMessage(t *testing.T) {
	id := func(v any) jsonrpc.ID {
		t.Helper()
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	result := json.RawMessage(`{"content":[{"type":"text","text":"200 OK\n\u003cp\u003e\"quoted\" \\ é"}],"structuredContent":{"status":200}}`)
	for _, tc := range []struct {
		name string
		msg  jsonrpc.Message
	}{
		{"result, number id", &jsonrpc.Response{ID: id(float64(7)), Result: result}},
		{"result, negative id", &jsonrpc.Response{ID: id(float64(-3)), Result: json.RawMessage(`{}`)}},
		{"result, string id", &jsonrpc.Response{ID: id(`a"<b>&\u2028`), Result: result}},
		{"error", &jsonrpc.Response{ID: id(float64(1)), Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown tool \"x\""}}},
		{"no result", &jsonrpc.Response{ID: id("x")}},
		{"request", &jsonrpc.Request{ID: id(float64(2)), Method: "roots/list", Params: json.RawMessage(`{}`)}},
		{"notification", &jsonrpc.Request{Method: "notifications/tools/list_changed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := jsonrpc.EncodeMessage(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendMessage([]byte("prefix"), tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := bytes.CutPrefix(got, []byte("prefix"))
			if !ok {
				t.Fatalf("appendMessage dropped what dst held: %s", got)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("appendMessage = %s: not JSON: %v", got, err)
			}
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("appendMessage = %s; EncodeMessage = %s (-want +got):\n%s", got, want, diff)
			}
			back, err := jsonrpc.DecodeMessage(got)
			if err != nil {
				t.Fatalf("DecodeMessage(%s): %v", got, err)
			}
			if again, err := jsonrpc.EncodeMessage(back); err != nil || !bytes.Equal(again, want) {
				t.Errorf("decoded and encoded again: %s, %v; want %s", again, err, want)
			}
		})
	}
}
