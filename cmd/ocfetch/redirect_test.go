package main

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestGetRedirectTo: a refused off-target redirect — to another host,
// another scheme, another port — gives the caller the full Location,
// resolved against the request URL (the --json error object's
// redirect_to, a "redirect_to:" line on stderr otherwise), so a new call
// can fetch it, decided on its own. The audit log and the diagnostics (at
// the highest verbosity) keep the secret-free summary only: no path, no
// query of the Location.
func TestGetRedirectTo(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/cross", http.RedirectHandler("https://www.example.com/moved/secret-path?token=secret-tok", http.StatusMovedPermanently))
	mux.Handle("/scheme", http.RedirectHandler("http://example.com/secret-path?token=secret-tok", http.StatusFound))
	mux.Handle("/port", http.RedirectHandler("https://example.com:8443/secret-path?token=secret-tok", http.StatusTemporaryRedirect))
	// Relative to the request URL's host: resolved before it is handed on.
	mux.Handle("/relative", http.RedirectHandler("//www.example.com/secret-path?token=secret-tok", http.StatusFound))
	_, egressOpts := publicSite(t, mux)
	o := cliOptions{egress: egressOpts}
	root := newRoot(t)
	ocfetch(t, o, "--root", root, "rules", "allow", "example.com").want(t, exitOK, nil, nil)

	tests := []struct {
		path, want string
	}{
		{"/cross", "https://www.example.com/moved/secret-path?token=secret-tok"},
		{"/scheme", "http://example.com/secret-path?token=secret-tok"},
		{"/port", "https://example.com:8443/secret-path?token=secret-tok"},
		{"/relative", "https://www.example.com/secret-path?token=secret-tok"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			r := ocfetch(t, o, "--root", root, "-vvvv", "get", "--json", "https://example.com"+tc.path)
			if r.code != exitRefused {
				t.Fatalf("exit %d; want %d (stderr %q)", r.code, exitRefused, r.stderr)
			}
			var got struct {
				OK    bool `json:"ok"`
				Error struct {
					Reason     string `json:"reason"`
					Message    string `json:"message"`
					Hint       string `json:"hint"`
					RedirectTo string `json:"redirect_to"`
				} `json:"error"`
			}
			decodeStrict(t, r.stdout, &got)
			if got.OK || got.Error.Reason != "redirect_off_target" || got.Error.RedirectTo != tc.want {
				t.Errorf("got %+v; want redirect_off_target with redirect_to %q", got, tc.want)
			}
			if strings.Contains(got.Error.Message+got.Error.Hint, "secret") {
				t.Errorf("message or hint %q holds the Location's path or query", got.Error.Message+got.Error.Hint)
			}
			// -vvvv: every diagnostic went to stderr.
			if strings.Contains(r.stderr, "secret") {
				t.Errorf("diagnostics hold the Location's path or query:\n%s", r.stderr)
			}

			r = ocfetch(t, o, "--root", root, "get", "https://example.com"+tc.path)
			r.want(t, exitRefused, nil, []string{"redirect_off_target", "redirect_to: " + tc.want})
		})
	}
	b, err := os.ReadFile(wsOf(t, root).AuditPath())
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"outcome":"redirect_off_target"`); n != 2*len(tests) {
		t.Errorf("audit log has %d redirect_off_target lines; want %d:\n%s", n, 2*len(tests), b)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !json.Valid([]byte(line)) || strings.Contains(line, "secret") || strings.Contains(line, "moved") || strings.Contains(line, ":8443") {
			t.Errorf("audit line %s holds the Location (or is not JSON)", line)
		}
	}
}
