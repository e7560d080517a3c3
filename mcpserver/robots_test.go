package mcpserver

import (
	"context"
	"io"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/robotscheck"
)

// TestFetchRespectRobots: with Options.Robots (--respect-robots) the fetch
// tool refuses a page the site's robots.txt disallows, robots_disallowed,
// reads robots.txt once for the server's session, says so in the tool's
// description, and keeps the page's path and query out of the refusal and
// the audit log. Without it, robots.txt is never asked for.
func TestFetchRespectRobots(t *testing.T) {
	public := netip.MustParseAddr("93.184.215.14")
	var robotsHits, pageHits atomic.Int32
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			robotsHits.Add(1)
			io.WriteString(w, "User-agent: *\nDisallow: /private\n\nUser-agent: ocfetch\nDisallow: /no-ocfetch\n")
			return
		}
		pageHits.Add(1)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "page "+r.URL.Path)
	}), &testnet.Options{Only: netip.AddrPortFrom(public, 443)})
	eo := &egress.Options{Resolver: testnet.Resolver{"example.com": {public}}, Dial: pub.Dial, RootCAs: pub.RootCAs}
	ws := trustedWS(t, testws.Spec{Allow: []string{"example.com:443"}})

	t.Run("on", func(t *testing.T) {
		robotsHits.Store(0)
		pageHits.Store(0)
		cs := connect(t, &Options{Root: ws.Root, Egress: eo, Robots: robotscheck.New(nil), CacheTTL: -1}, clientSpec{})
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(tools.Tools) == 0 || !strings.Contains(tools.Tools[0].Description, "respects robots.txt") {
			t.Errorf("the tool's description does not say robots.txt is respected")
		}
		res := callFetch(t, cs, `{"url": "https://example.com/public", "format": "raw"}`)
		if res.IsError || !strings.Contains(text(res), "page /public") {
			t.Fatalf("allowed page: isError %v, text:\n%s", res.IsError, text(res))
		}
		for _, path := range []string{"/no-ocfetch/x?key=topsecret", "/no-ocfetch"} {
			res = callFetch(t, cs, `{"url": "https://example.com`+path+`"}`)
			if !res.IsError || !strings.HasPrefix(text(res), "robots_disallowed: robots.txt of https://example.com:443 disallows this page") {
				t.Errorf("%s: isError %v, text %q; want robots_disallowed naming the origin", path, res.IsError, text(res))
			}
			if strings.Contains(text(res), "no-ocfetch") || strings.Contains(text(res), "topsecret") {
				t.Errorf("the refusal %q holds the page's path or query", text(res))
			}
		}
		if n := robotsHits.Load(); n != 1 {
			t.Errorf("robots.txt requested %d times for three calls; want 1 (kept for the session)", n)
		}
		if n := pageHits.Load(); n != 1 {
			t.Errorf("pages requested %d times; want 1 (refused pages are not requested)", n)
		}
		data, err := os.ReadFile(ws.AuditPath())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "no-ocfetch") || strings.Contains(string(data), "topsecret") {
			t.Errorf("the audit log holds the page's path or query:\n%s", data)
		}
		var refused int
		for _, l := range auditLines(t, ws) {
			if l["outcome"] == "robots_disallowed" {
				refused++
				if l["summary"] != "GET example.com" {
					t.Errorf("audit summary %q; want GET example.com", l["summary"])
				}
			}
		}
		if refused != 2 {
			t.Errorf("%d audit lines say robots_disallowed; want 2", refused)
		}
	})
	t.Run("off", func(t *testing.T) {
		robotsHits.Store(0)
		cs := connect(t, &Options{Root: ws.Root, Egress: eo, CacheTTL: -1}, clientSpec{})
		res := callFetch(t, cs, `{"url": "https://example.com/no-ocfetch", "format": "raw"}`)
		if res.IsError || !strings.Contains(text(res), "page /no-ocfetch") {
			t.Fatalf("without Robots: isError %v, text:\n%s", res.IsError, text(res))
		}
		if n := robotsHits.Load(); n != 0 {
			t.Errorf("robots.txt requested %d times without Robots; want 0", n)
		}
	})
}
