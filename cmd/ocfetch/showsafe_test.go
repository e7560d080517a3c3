package main

import (
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/internal/testsupport/hostile"
	"github.com/ocfetch/ocfetch/safetext"
)

// TestHeaderValuesSafeEverywhere: a server's Server, ETag and
// Last-Modified carrying each family of characters unsafe to show (C0 and
// C1 controls, DEL, bidi overrides, embeddings, isolates and marks,
// invalid UTF-8) read the same, replaced visibly, in get --json, in the
// text output and in the audit line; a family that cannot travel in a
// header Go accepts (C0, DEL) fails the call with a message as clean.
func TestHeaderValuesSafeEverywhere(t *testing.T) {
	for _, tc := range hostile.UnsafeHeaderValues {
		t.Run(tc.Family, func(t *testing.T) {
			srv := httptest.NewServer(hostile.UnsafeHeaders(tc.Value))
			t.Cleanup(srv.Close)
			s := &site{Server: srv, port: srv.Listener.Addr().(*net.TCPAddr).Port}
			root := localRoot(t, s)
			args := []string{"--root", root, "--profile", "permissive", "get", "--format", "raw"}

			jr := ocfetch(t, cliOptions{}, append(args, "--json", srv.URL+"/")...)
			tr := ocfetch(t, cliOptions{}, append(args, srv.URL+"/")...)
			if !tc.Wire {
				jr.want(t, exitFailed, nil, nil)
				var got getFailure
				decodeStrict(t, jr.stdout, &got)
				assertSafe(t, "--json error", got.Error.Message+got.Error.Hint)
				assertSafe(t, "text error", strings.ReplaceAll(tr.stderr, "\n", " "))
				return
			}
			jr.want(t, exitOK, nil, nil)
			var got getSuccess
			decodeStrict(t, jr.stdout, &got)
			for _, name := range []string{"server", "etag", "last-modified"} {
				if got.Headers[name] != tc.Shown {
					t.Errorf("--json %s = %q; want %q", name, got.Headers[name], tc.Shown)
				}
			}
			tr.want(t, exitOK, []string{"server: " + tc.Shown + "\n", "etag: " + tc.Shown + "\n", "last-modified: " + tc.Shown + "\n"}, nil)
			assertSafe(t, "text output", strings.ReplaceAll(tr.stdout, "\n", " "))

			audit, err := os.ReadFile(filepath.Join(root, ".oc_chat", "audit.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(audit), "\n"); n != 2 {
				t.Errorf("%d audit lines; want 2", n)
			}
			assertSafe(t, "audit log", strings.ReplaceAll(string(audit), "\n", " "))
			if strings.Contains(string(audit), "\\u00") || strings.Contains(string(audit), "\\u20") {
				t.Errorf("the audit log holds an escaped control: %s", audit)
			}
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

// TestMessagesSafeToShow: a refusal that names a path a clone chose (a
// directory named with a bidi override and a C1 control) shows it replaced
// visibly on stderr, in get --json's error and in explain --json's
// message, as the text rendering does.
func TestMessagesSafeToShow(t *testing.T) {
	root := filepath.Join(newUntrustedRoot(t), "proj\u202egpj.exe\u0085")
	writeFile(t, filepath.Join(root, ".oc_chat", "settings.json"), `{"schema_version": 2}`)
	shown := safetext.Line(filepath.Join(root, ".oc_chat", "settings.json"))

	r := ocfetch(t, cliOptions{}, "--root", root, "get", "https://example.com/")
	r.want(t, exitRefused, nil, []string{"ocfetch: settings_invalid: settings file " + shown + ": schema_version 2 is not supported"})
	assertSafe(t, "stderr", strings.ReplaceAll(r.stderr, "\n", " "))

	r = ocfetch(t, cliOptions{}, "--root", root, "get", "--json", "https://example.com/")
	r.want(t, exitRefused, nil, nil)
	var got getFailure
	decodeStrict(t, r.stdout, &got)
	if !strings.Contains(got.Error.Message, shown) {
		t.Errorf("--json message %q; want the path shown as %q", got.Error.Message, shown)
	}
	assertSafe(t, "--json error", got.Error.Message+" "+got.Error.Hint)
}
