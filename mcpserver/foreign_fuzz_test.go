package mcpserver

import (
	"bufio"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// FuzzForeignRequest: the request head a browser on a hostile page (or a
// DNS-rebound name) sends to the MCP HTTP server. A request is let in only
// when its Host is a loopback address or "localhost", and Sec-Fetch-Site
// says same-origin or none or, without it, an Origin (if any) names that
// same host; a refusal is a short line that quotes nothing of the request.
func FuzzForeignRequest(f *testing.F) {
	f.Add("127.0.0.1:8080", "", "")
	f.Add("localhost:8080", "same-origin", "http://localhost:8080")
	f.Add("[::1]:8080", "none", "")
	f.Add("evil.example:8080", "", "")
	f.Add("127.0.0.1:8080", "cross-site", "")
	f.Add("127.0.0.1:8080", "", "https://evil.example")
	f.Add("127.0.0.1:8080", "", "null")
	f.Add("127.0.0.1:8080", "", "http://user@127.0.0.1:8080")
	f.Add("127.1:8080", "", "")
	f.Add("LOCALHOST", "", "")
	f.Add("[::ffff:127.0.0.1]:80", "", "")
	f.Fuzz(func(t *testing.T, host, site, origin string) {
		head := "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\n"
		if site != "" {
			head += "Sec-Fetch-Site: " + site + "\r\n"
		}
		if origin != "" {
			head += "Origin: " + origin + "\r\n"
		}
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(head + "\r\n")))
		if err != nil {
			return
		}
		why := foreignRequest(r)
		if why != "" {
			if !strings.HasPrefix(why, "forbidden: ") || len(why) > 80 || (len(host) > 3 && strings.Contains(why, host)) {
				t.Fatalf("foreignRequest: refusal %q", why)
			}
			return
		}
		h, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			h = strings.Trim(r.Host, "[]")
		}
		if ip, err := netip.ParseAddr(h); h != "localhost" && (err != nil || !ip.IsLoopback()) {
			t.Fatalf("foreignRequest let in Host %q", r.Host)
		}
		switch s := r.Header.Get("Sec-Fetch-Site"); s {
		case "", "same-origin", "none":
		default:
			t.Fatalf("foreignRequest let in Sec-Fetch-Site %q", s)
		}
		// A browser's Sec-Fetch-Site is trusted over its Origin, as
		// net/http's cross-origin protection does; Origin counts without it.
		if o := r.Header.Get("Origin"); o != "" && r.Header.Get("Sec-Fetch-Site") == "" {
			u, err := url.Parse(o)
			if err != nil || u.Host != r.Host {
				t.Fatalf("foreignRequest let in Origin %q for Host %q", o, r.Host)
			}
		}
	})
}
