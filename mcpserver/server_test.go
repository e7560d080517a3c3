package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

func TestListToolsSchema(t *testing.T) {
	ws := trustedWS(t, testws.Spec{})
	cs := connect(t, &Options{Root: ws.Root}, clientSpec{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != "fetch" {
		t.Fatalf("tools = %v; want the one tool fetch", res.Tools)
	}
	tl := res.Tools[0]
	if !strings.Contains(tl.Description, "start_index") || !strings.Contains(tl.Description, "https") {
		t.Errorf("description does not explain paging and https:\n%s", tl.Description)
	}
	var in struct {
		Type                 string                     `json:"type"`
		Required             []string                   `json:"required"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
		Properties           map[string]json.RawMessage `json:"properties"`
	}
	remarshal(t, tl.InputSchema, &in)
	var props []string
	for name, raw := range in.Properties {
		props = append(props, name)
		var p struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		if p.Type == "" || p.Description == "" {
			t.Errorf("input property %s: type %q, description %q; want both", name, p.Type, p.Description)
		}
	}
	want := []string{"body", "format", "headers", "max_bytes", "max_length", "method", "start_index", "timeout", "url"}
	if diff := cmp.Diff(want, props, sortStrings); diff != "" {
		t.Errorf("input properties (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"url"}, in.Required); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
	if in.AdditionalProperties == nil || *in.AdditionalProperties {
		t.Errorf("input additionalProperties = %v; want false", in.AdditionalProperties)
	}
	var enums struct {
		Properties map[string]struct {
			Enum    []string `json:"enum"`
			Default any      `json:"default"`
		} `json:"properties"`
	}
	remarshal(t, tl.InputSchema, &enums)
	if diff := cmp.Diff([]string{"GET", "POST"}, enums.Properties["method"].Enum); diff != "" {
		t.Errorf("method enum (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"markdown", "text", "raw"}, enums.Properties["format"].Enum); diff != "" {
		t.Errorf("format enum (-want +got):\n%s", diff)
	}

	var out struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	remarshal(t, tl.OutputSchema, &out)
	var outProps []string
	for name := range out.Properties {
		outProps = append(outProps, name)
	}
	// Those of before, and those fetch.Output added when the shapes became
	// one (title, media_type, start_index, remaining, notes).
	wantOut := []string{"body_truncated", "bytes", "cached", "fetched_at", "format", "headers", "next_start_index", "redirect_to", "status", "truncated", "url",
		"title", "media_type", "start_index", "remaining", "notes"}
	if diff := cmp.Diff(wantOut, outProps, sortStrings); diff != "" {
		t.Errorf("output properties (-want +got):\n%s", diff)
	}
}

func TestInstructionsNameTheRoot(t *testing.T) {
	ws := trustedWS(t, testws.Spec{})
	cs := connect(t, &Options{Root: ws.Root}, clientSpec{protocol: protoLegacy})
	got := cs.InitializeResult().Instructions
	if want := "Workspace root: " + ws.Root + " (from --root)"; !strings.Contains(got, want) {
		t.Errorf("instructions = %q; want them to contain %q", got, want)
	}

	dir := t.TempDir()
	t.Chdir(dir)
	cs = connect(t, nil, clientSpec{protocol: protoLegacy})
	got = cs.InitializeResult().Instructions
	if want := "client's first file:// root (MCP roots) when the client declares roots, else the current directory " + dir; !strings.Contains(got, want) {
		t.Errorf("instructions = %q; want them to contain %q", got, want)
	}
}

func TestFetchLocal(t *testing.T) {
	srv, port := pageServer(t)
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			ws := localWorkspace(t, port, fmt.Sprintf("127.0.0.1:%d", port))
			cs := connect(t, &Options{Root: ws.Root}, clientSpec{protocol: proto})
			res := callFetch(t, cs, fmt.Sprintf(`{"url": %q}`, srv.URL+"/hello?token=s3cret"))
			if res.IsError {
				t.Fatalf("isError; text:\n%s", text(res))
			}
			got := text(res)
			for _, want := range []string{"HTTP 200 OK", "content-type: text/html; charset=utf-8", pageMarker} {
				if !strings.Contains(got, want) {
					t.Errorf("text content lacks %q:\n%s", want, got)
				}
			}
			var out Output
			remarshal(t, res.StructuredContent, &out)
			want := Output{
				Status:  200,
				URL:     srv.URL + "/hello?token=s3cret",
				Headers: map[string]string{"content-type": "text/html; charset=utf-8", "content-length": fmt.Sprint(len(pageBody)), "etag": `"v1"`},
				Format:  "markdown",
				Bytes:   int64(len(pageBody)),
				// Added when the output shapes became one (fetch.Output).
				Title:     "Hello page",
				MediaType: "text/html",
			}
			if diff := cmp.Diff(want, out); diff != "" {
				t.Errorf("structured content (-want +got):\n%s", diff)
			}
			validateOutput(t, res.StructuredContent)

			lines := auditLines(t, ws)
			if len(lines) != 1 {
				t.Fatalf("audit has %d lines; want 1", len(lines))
			}
			line, _ := json.Marshal(lines[0])
			if strings.Contains(string(line), "s3cret") || strings.Contains(string(line), "/hello") {
				t.Errorf("audit line holds the path or query: %s", line)
			}
			if lines[0]["summary"] != "GET 127.0.0.1" || lines[0]["decided_by"] != "rule" || lines[0]["outcome"] != "ok" {
				t.Errorf("audit line = %s; want summary GET 127.0.0.1, decided_by rule, outcome ok", line)
			}
		})
	}
}

// TestRefusals checks that every refusal is a tool error result (isError,
// the reason code first in the text), never a protocol error, that nothing
// of the path or query leaks into it, and that the server keeps serving.
func TestRefusals(t *testing.T) {
	hugeLen := 10 << 20
	if raceEnabled {
		hugeLen = 1 << 20
	}
	huge := strings.Repeat("A", hugeLen)
	tests := []struct {
		name     string
		args     string
		spec     testws.Spec
		wantCode string
		wantText []string
		// legacyOnly: the case is about argument decoding, which does not
		// depend on the protocol; it is slow enough to run once.
		legacyOnly bool
	}{
		{name: "http to a public host", args: `{"url": "http://example.com/a?secret=1"}`, wantCode: "https_required"},
		{name: "non-public IP literal", args: `{"url": "https://127.0.0.2/a?secret=1"}`, wantCode: "address_not_public"},
		{name: "file scheme", args: `{"url": "file:///etc/passwd"}`, wantCode: "scheme_not_allowed"},
		{name: "credentials", args: `{"url": "https://user:secret@example.com/"}`, wantCode: "credentials_in_url"},
		{name: "url of the wrong type", args: `{"url": 5}`, wantCode: "invalid_arguments"},
		{name: "max_length of the wrong type", args: `{"url": "https://example.com/", "max_length": "10"}`, wantCode: "invalid_arguments"},
		{name: "unknown field", args: `{"url": "https://example.com/", "verbose": true}`, wantCode: "invalid_arguments"},
		{name: "duplicate key", args: `{"url": "https://example.com/", "url": "https://example.org/"}`, wantCode: "invalid_arguments"},
		{name: "arguments not an object", args: `["https://example.com/"]`, wantCode: "invalid_arguments"},
		{name: "no url", args: `{}`, wantCode: "invalid_arguments"},
		{name: "10 MB string", args: `{"url": "https://example.com/` + huge + `"}`, wantCode: "invalid_arguments", legacyOnly: true},
		{name: "body over 64 KiB", args: `{"url": "https://example.com/", "method": "POST", "body": "` + strings.Repeat("A", 100<<10) + `"}`, wantCode: "invalid_arguments"},
		{
			name: "no elicitation: not approved", args: `{"url": "https://example.com/private?secret=1"}`, wantCode: "not_approved",
			wantText: []string{"hint: ask the user to run: ocfetch rules allow example.com:443"},
		},
		{
			name: "deny rule", args: `{"url": "https://example.com/private?secret=1"}`, wantCode: "denied_by_rule",
			spec: testws.Spec{Deny: []string{"example.com:443"}}, wantText: []string{"hint: the user denies this target with a saved rule: do not retry it", "ask the user to run: ocfetch rules remove example.com:443"},
		},
		{
			name: "strict profile", args: `{"url": "https://example.com/"}`, wantCode: "not_approved",
			spec: testws.Spec{Profile: "strict"}, wantText: []string{"strict"},
		},
		{
			name: "local port not allowed", args: `{"url": "http://127.0.0.1:1/"}`, wantCode: "local_port_not_allowed", spec: testws.Spec{Profile: "permissive", LocalPorts: []uint16{}},
			wantText: []string{"hint: ask the user to run: ocfetch local allow 1"},
		},
		{
			name: "local allowlist missing", args: `{"url": "http://127.0.0.1:1/"}`, wantCode: "local_allowlist_missing", spec: testws.Spec{Profile: "permissive"},
			wantText: []string{"hint: ask the user to run: ocfetch local allow PORT"},
		},
		{name: "local mode needs permissive", args: `{"url": "http://localhost:8080/"}`, wantCode: "local_profile_not_permissive"},
		{name: "settings invalid", args: `{"url": "https://example.com/"}`, wantCode: "settings_invalid", spec: testws.Spec{Profile: "reckless"}},
	}
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					if tc.legacyOnly && proto != protoLegacy {
						t.Skip("argument decoding does not depend on the protocol")
					}
					ws := trustedWS(t, tc.spec)
					cs := connect(t, &Options{Root: ws.Root}, clientSpec{protocol: proto})
					res := callFetch(t, cs, tc.args)
					got := text(res)
					if !res.IsError {
						t.Fatalf("isError = false; want a %s error result. text:\n%.300s", tc.wantCode, got)
					}
					if !strings.HasPrefix(got, tc.wantCode+": ") {
						t.Errorf("text = %.300q; want it to start with %q", got, tc.wantCode+": ")
					}
					for _, w := range tc.wantText {
						if !strings.Contains(got, w) {
							t.Errorf("text = %.300q; want it to contain %q", got, w)
						}
					}
					for _, leak := range []string{"secret", "/private", "AAAA", "--yes"} {
						if strings.Contains(got, leak) {
							t.Errorf("text = %.300q; it must not contain %q", got, leak)
						}
					}
					if len(got) > 2000 {
						t.Errorf("error text is %d bytes; want a short message", len(got))
					}
					// The server keeps serving after the refusal.
					ok := callFetch(t, cs, fmt.Sprintf(`{"url": %q}`, "http://localhost:1/"))
					if !ok.IsError {
						t.Fatalf("follow-up call: isError = false; want a refusal (no local port is allowed)")
					}
				})
			}
		})
	}
}

func TestMalformedArgumentsThenSuccess(t *testing.T) {
	srv, port := pageServer(t)
	ws := localWorkspace(t, port, fmt.Sprintf("127.0.0.1:%d", port))
	cs := connect(t, &Options{Root: ws.Root}, clientSpec{})
	for _, args := range []string{
		`{"url": ["x"]}`,
		`{"url": "` + srv.URL + `", "start_index": -1}`,
		`{"url": "` + srv.URL + `", "headers": {"X": 1}}`,
		`{"url": "` + srv.URL + `", "` + strings.Repeat("k", 300<<10) + `": 1}`,
		`null`,
	} {
		if res := callFetch(t, cs, args); !res.IsError || !strings.HasPrefix(text(res), "invalid_arguments: ") {
			t.Errorf("args %.60s: isError %v, text %.200q; want invalid_arguments", args, res.IsError, text(res))
		}
	}
	res := callFetch(t, cs, fmt.Sprintf(`{"url": %q, "format": "text"}`, srv.URL))
	if res.IsError || !strings.Contains(text(res), pageMarker) {
		t.Fatalf("after malformed calls: isError %v, text:\n%s", res.IsError, text(res))
	}
}

func TestUnknownToolIsProtocolError(t *testing.T) {
	ws := trustedWS(t, testws.Spec{})
	cs := connect(t, &Options{Root: ws.Root}, clientSpec{})
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shell", Arguments: map[string]any{}}); err == nil {
		t.Fatal("CallTool(shell): no error; want the SDK's unknown-tool protocol error")
	}
}

var sortStrings = cmp.Transformer("sort", func(in []string) []string {
	out := append([]string(nil), in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
})

func remarshal(t testing.TB, from, to any) {
	t.Helper()
	data, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, to); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
}

// validateOutput checks v against the declared output schema.
func validateOutput(t testing.TB, v any) {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(outputSchema, &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var inst any
	remarshal(t, v, &inst)
	if err := r.Validate(inst); err != nil {
		t.Errorf("structured content does not match the output schema: %v", err)
	}
}
