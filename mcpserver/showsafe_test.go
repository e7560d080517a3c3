package mcpserver

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/internal/testsupport/hostile"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/safetext"
)

// TestHeaderValuesSafeEverywhere: a server's Server, ETag and
// Last-Modified carrying each family of characters unsafe to show (C0 and
// C1 controls, DEL, bidi overrides, embeddings, isolates and marks,
// invalid UTF-8) read the same, replaced visibly, in the text content, in
// the structured content and in the audit line; a family that cannot
// travel in a header Go accepts (C0, DEL) fails the call with a text as
// clean.
func TestHeaderValuesSafeEverywhere(t *testing.T) {
	for _, tc := range hostile.UnsafeHeaderValues {
		t.Run(tc.Family, func(t *testing.T) {
			srv := httptest.NewServer(hostile.UnsafeHeaders(tc.Value))
			t.Cleanup(srv.Close)
			ws := localWorkspace(t, portOf(t, srv.URL), strings.TrimPrefix(srv.URL, "http://"))
			cs := connect(t, &Options{Root: ws.Root}, clientSpec{})
			res := callFetch(t, cs, `{"url": "`+srv.URL+`/", "format": "raw"}`)
			txt := strings.ReplaceAll(text(res), "\n", " ")
			assertSafe(t, "text content", txt)
			if !tc.Wire {
				if !res.IsError || !strings.HasPrefix(txt, "connection_failed: ") {
					t.Errorf("isError %v, text %q; want connection_failed", res.IsError, txt)
				}
				return
			}
			if res.IsError {
				t.Fatalf("got an error %q; want a delivered result", txt)
			}
			for _, name := range []string{"server", "etag", "last-modified"} {
				if want := name + ": " + tc.Shown + " "; !strings.Contains(txt, want) {
					t.Errorf("text content %q; want %q in it", txt, want)
				}
			}
			out := structured(t, res)
			for _, name := range []string{"server", "etag", "last-modified"} {
				if out.Headers[name] != tc.Shown {
					t.Errorf("structuredContent headers.%s = %q; want %q", name, out.Headers[name], tc.Shown)
				}
			}
			raw, err := json.Marshal(res.StructuredContent)
			if err != nil {
				t.Fatal(err)
			}
			assertSafe(t, "structuredContent", string(raw))
			if strings.Contains(string(raw), `\u00`) {
				t.Errorf("structuredContent holds an escaped control: %s", raw)
			}

			audit, err := os.ReadFile(ws.AuditPath())
			if err != nil {
				t.Fatal(err)
			}
			if n := len(auditLines(t, ws)); n != 1 {
				t.Errorf("%d audit lines; want 1", n)
			}
			assertSafe(t, "audit line", strings.TrimSuffix(string(audit), "\n"))
		})
	}
}

// assertSafe fails when s holds a character safetext would replace.
func assertSafe(t *testing.T, where, s string) {
	t.Helper()
	if clean := safetext.Line(s); clean != s {
		t.Errorf("%s holds characters unsafe to show: %q", where, s)
	}
}

// TestRefusalTextSafeToShow: a refusal naming a path a clone chose (a
// directory named with a bidi override and a C1 control) reaches the model
// with those characters replaced visibly.
func TestRefusalTextSafeToShow(t *testing.T) {
	ws := trustedWS(t, testws.Spec{})
	root := filepath.Join(ws.Root, "proj\u202egpj.exe\u0085")
	if err := os.MkdirAll(filepath.Join(root, ".oc_chat"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".oc_chat", "settings.json"), []byte(`{"schema_version": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, &Options{Root: root}, clientSpec{})
	res := callFetch(t, cs, `{"url": "https://example.com/"}`)
	want := "settings_invalid: settings file " + safetext.Line(filepath.Join(root, ".oc_chat", "settings.json")) + ": schema_version 2 is not supported"
	if !res.IsError || !strings.HasPrefix(text(res), want) {
		t.Errorf("isError %v, text %q; want it to start %q", res.IsError, text(res), want)
	}
	assertSafe(t, "text content", strings.ReplaceAll(text(res), "\n", " "))
}
