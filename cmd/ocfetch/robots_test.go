package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestGetRespectRobots: `get --respect-robots` refuses a page robots.txt
// disallows (exit 3, robots_disallowed, in --json too), fetches an allowed
// one, writes the page's body — not robots.txt's — with -o, and keeps the
// page's path and query out of the message and the audit log. Without the
// flag robots.txt is not asked for.
func TestGetRespectRobots(t *testing.T) {
	var robotsHits atomic.Int32
	_, egressOpts := publicSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			robotsHits.Add(1)
			io.WriteString(w, "# rules\nUser-agent: *\nDisallow: /private\n")
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "page "+r.URL.Path)
	}))
	o := cliOptions{egress: egressOpts}
	root := newRoot(t)
	ocfetch(t, o, "--root", root, "rules", "allow", "example.com").want(t, exitOK, nil, nil)

	r := ocfetch(t, o, "--root", root, "get", "--respect-robots", "https://example.com/private/report?id=4711")
	r.want(t, exitRefused, nil, []string{"robots_disallowed: robots.txt of https://example.com:443 disallows this page for user agent ocfetch", "without --respect-robots"})
	if strings.Contains(r.stderr, "report") || strings.Contains(r.stderr, "4711") {
		t.Errorf("stderr holds the page's path or query:\n%s", r.stderr)
	}

	r = ocfetch(t, o, "--root", root, "get", "--respect-robots", "--json", "https://example.com/private/x")
	var js struct {
		OK    bool `json:"ok"`
		Error struct {
			Reason string `json:"reason"`
			Hint   string `json:"hint"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &js); err != nil || js.OK || js.Error.Reason != "robots_disallowed" || js.Error.Hint == "" {
		t.Errorf("--json: %v %+v; want ok false, reason robots_disallowed, a hint\n%s", err, js, r.stdout)
	}
	if r.code != exitRefused {
		t.Errorf("--json exit %d; want %d", r.code, exitRefused)
	}

	file := filepath.Join(t.TempDir(), "page.txt")
	r = ocfetch(t, o, "--root", root, "get", "--respect-robots", "--format", "raw", "-o", file, "https://example.com/public")
	r.want(t, exitOK, nil, nil)
	if got, err := os.ReadFile(file); err != nil || string(got) != "page /public" {
		t.Errorf("-o wrote %q (%v); want the page's body, not robots.txt", got, err)
	}
	if n := robotsHits.Load(); n != 3 {
		t.Errorf("robots.txt requested %d times by three processes; want 3 (one each)", n)
	}

	audit, err := os.ReadFile(wsOf(t, root).AuditPath())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(audit), "/private") || strings.Contains(string(audit), "id=4711") || !strings.Contains(string(audit), `"outcome":"robots_disallowed"`) {
		t.Errorf("audit log: want robots_disallowed without the page's path or query:\n%s", audit)
	}

	robotsHits.Store(0)
	ocfetch(t, o, "--root", root, "get", "https://example.com/private/x").want(t, exitOK, []string{"page /private/x"}, nil)
	if n := robotsHits.Load(); n != 0 {
		t.Errorf("robots.txt requested %d times without --respect-robots; want 0", n)
	}
}
