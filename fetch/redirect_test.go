package fetch

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ocfetch/ocfetch/internal/testsupport/hostile"
	"github.com/ocfetch/ocfetch/refusal"
)

func TestRedirectOnTargetFollowed(t *testing.T) {
	h := newHarness(t, nil)
	mux := http.NewServeMux()
	mux.Handle("/start", hostile.RedirectTo("/middle?x=1", http.StatusMovedPermanently))
	mux.Handle("/middle", hostile.RedirectTo("/final", http.StatusFound))
	mux.Handle("/final", hostile.Page("text/plain", []byte("arrived")))
	base, port := h.serve(mux)
	// An absolute Location spelling the same host and port differently is
	// still on target.
	mux.Handle("/absolute", hostile.RedirectTo("HTTP://127.0.0.1:"+portString(port)+"/final", http.StatusFound))
	for _, path := range []string{"/start", "/absolute"} {
		out := output(t, call(context.Background(), h.f, `{"url": "`+base+path+`"}`))
		if out.Content != "arrived" || out.URL != base+"/final" {
			t.Errorf("%s: content %q url %q; want arrived at %s/final", path, out.Content, out.URL, base)
		}
	}
}

// TestRedirectOffTargetRefused: a redirect to another port, another
// loopback address, an IPv4-mapped loopback, another scheme or another host
// spelling is refused by name before anything is sent to it, and the
// refusal names the redirect's origin only, never its path or query.
func TestRedirectOffTargetRefused(t *testing.T) {
	h := newHarness(t, nil)
	rec := &hostile.Recorder{}
	_, otherPort := h.serve(rec) // allowlisted too: the policy, not the allowlist, refuses
	var location atomic.Value
	base, port := h.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hostile.RedirectTo(location.Load().(string), http.StatusFound).ServeHTTP(w, r)
	}))
	p, op := portString(port), portString(otherPort)
	tests := []struct {
		name, location, wantOrigin string
		want                       refusal.Code
		// wantTo is the RedirectTo handed to the caller: the Location
		// resolved against the request URL; empty where there is nothing
		// a new call could fetch.
		wantTo string
	}{
		{"other port", "http://127.0.0.1:" + op + "/secret-path?secret-query=1", "http://127.0.0.1:" + op, refusal.RedirectOffTarget, "http://127.0.0.1:" + op + "/secret-path?secret-query=1"},
		{"127.0.0.2", "http://127.0.0.2:" + p + "/secret-path", "http://127.0.0.2:" + p, refusal.RedirectOffTarget, "http://127.0.0.2:" + p + "/secret-path"},
		{"mapped loopback", "http://[::ffff:127.0.0.1]:" + p + "/secret-path", "http://[::ffff:127.0.0.1]:" + p, refusal.RedirectOffTarget, "http://[::ffff:127.0.0.1]:" + p + "/secret-path"},
		{"other scheme", "https://127.0.0.1:" + p + "/secret-path", "https://127.0.0.1:" + p, refusal.RedirectOffTarget, "https://127.0.0.1:" + p + "/secret-path"},
		{"scheme-relative", "//localhost:" + p + "/secret-path?token=secret-t", "http://localhost:" + p, refusal.RedirectOffTarget, "http://localhost:" + p + "/secret-path?token=secret-t"},
		{"other spelling of loopback", "http://localhost:" + p + "/secret-path", "http://localhost:" + p, refusal.RedirectOffTarget, "http://localhost:" + p + "/secret-path"},
		{"IPv6 loopback", "http://[::1]:" + p + "/secret-path", "http://[::1]:" + p, refusal.RedirectOffTarget, "http://[::1]:" + p + "/secret-path"},
		{"public host", "https://example.com/secret-path", "https://example.com:443", refusal.RedirectOffTarget, "https://example.com/secret-path"},
		{"default port", "http://127.0.0.1/secret-path", "http://127.0.0.1:80", refusal.RedirectOffTarget, "http://127.0.0.1/secret-path"},
		{"credentials", "http://user:secret-pw@127.0.0.1:" + p + "/secret-path", "", refusal.CredentialsInURL, ""},
		{"file scheme", "file:///etc/secret-path", "file://", refusal.RedirectOffTarget, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			location.Store(tc.location)
			res := call(context.Background(), h.f, `{"url": "`+base+`/start"}`)
			wantError(t, res, tc.want)
			if tc.wantOrigin != "" && !strings.Contains(res.Message, tc.wantOrigin) {
				t.Errorf("message %q does not name the redirect origin %q", res.Message, tc.wantOrigin)
			}
			// The Location reaches the caller in RedirectTo (and the
			// content's last line) only.
			content := strings.TrimSuffix(res.Content, "\nredirect_to: "+tc.wantTo)
			if text := content + res.Message + res.Hint; strings.Contains(text, "secret") {
				t.Errorf("error result %q leaks the redirect's path, query or credentials", text)
			}
			if res.RedirectTo != tc.wantTo {
				t.Errorf("RedirectTo %q; want %q", res.RedirectTo, tc.wantTo)
			}
			if tc.wantTo == "" {
				return
			}
			out, ok := res.Structured.(Output)
			if !ok || out.RedirectTo != tc.wantTo || out.Status != http.StatusFound || out.URL != base+"/start" {
				t.Errorf("structured %+v; want status 302 from %s/start, redirect_to %q", res.Structured, base, tc.wantTo)
			}
		})
	}
	if n := len(rec.Requests()); n != 0 {
		t.Errorf("off-target server got %d requests; want 0", n)
	}
}

// TestRedirectLoop: a redirect chain that never ends stops after 10
// followed hops (11 requests) with too_many_redirects.
func TestRedirectLoop(t *testing.T) {
	h := newHarness(t, nil)
	var n atomic.Int32
	base, _ := h.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		hostile.RedirectLoop().ServeHTTP(w, r)
	}))
	wantError(t, call(context.Background(), h.f, `{"url": "`+base+`/loop"}`), refusal.TooManyRedirects)
	if got := n.Load(); got != maxRedirects+1 {
		t.Errorf("server saw %d requests; want %d (the first and %d hops)", got, maxRedirects+1, maxRedirects)
	}
	// Exactly 10 hops are followed.
	var m atomic.Int32
	base2, _ := h.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m.Add(1) <= maxRedirects {
			hostile.RedirectLoop().ServeHTTP(w, r)
			return
		}
		io.WriteString(w, "done")
	}))
	if out := output(t, call(context.Background(), h.f, `{"url": "`+base2+`/"}`)); out.Content != "done" {
		t.Errorf("content %q after 10 hops; want done", out.Content)
	}
}

// TestRedirect307POST: a 307 or 308 replays a POST and its body. On target
// that is followed; off target it is refused before the request is sent, so
// the other server never sees the body.
func TestRedirect307POST(t *testing.T) {
	h := newHarness(t, nil)
	off := &hostile.Recorder{}
	offBase, _ := h.serve(off)
	on := &hostile.Recorder{}
	mux := http.NewServeMux()
	mux.Handle("/on", hostile.RedirectTo("/recorder", http.StatusTemporaryRedirect))
	mux.Handle("/on308", hostile.RedirectTo("/recorder", http.StatusPermanentRedirect))
	mux.Handle("/off", hostile.RedirectTo(offBase+"/stolen", http.StatusTemporaryRedirect))
	mux.Handle("/off308", hostile.RedirectTo(offBase+"/stolen", http.StatusPermanentRedirect))
	mux.Handle("/recorder", on)
	base, _ := h.serve(mux)
	const body = "password=hunter2"

	for _, path := range []string{"/off", "/off308"} {
		wantError(t, call(context.Background(), h.f, `{"url": "`+base+path+`", "method": "POST", "body": "`+body+`"}`), refusal.RedirectOffTarget)
	}
	if got := off.Requests(); len(got) != 0 {
		t.Errorf("off-target server got %d requests (first body %q); want none", len(got), got[0].Body)
	}
	for _, path := range []string{"/on", "/on308"} {
		output(t, call(context.Background(), h.f, `{"url": "`+base+path+`", "method": "POST", "body": "`+body+`"}`))
	}
	got := on.Requests()
	if len(got) != 2 || got[0].Method != "POST" || string(got[0].Body) != body || string(got[1].Body) != body {
		t.Errorf("on-target recorder got %+v; want two POSTs with the body replayed", got)
	}
}

// TestRedirectReadmitsLocal: every hop is admitted again; a port revoked
// while the chain runs stops it at the next hop.
func TestRedirectReadmitsLocal(t *testing.T) {
	h := newHarness(t, nil)
	var final atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) {
		writeAllowlist(h.t, h.ws) // the user revokes every port
		http.Redirect(w, r, "/final", http.StatusFound)
	})
	mux.HandleFunc("/final", func(w http.ResponseWriter, r *http.Request) { final.Add(1) })
	base, _ := h.serve(mux)
	wantError(t, call(context.Background(), h.f, `{"url": "`+base+`/start"}`), refusal.LocalPortNotAllowed)
	if final.Load() != 0 {
		t.Errorf("the hop after revocation was sent")
	}
}
