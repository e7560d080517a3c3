package proxy

import (
	"bufio"
	"net/http"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/capability"
)

// FuzzParseRequest feeds arbitrary request heads to the parser the proxy
// runs on untrusted input. Whatever it accepts names a normalised target
// with a port, and its audit summary never carries a path or query.
func FuzzParseRequest(f *testing.F) {
	seeds := []string{
		// the two accepted forms
		"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
		"GET http://example.com/a?b=c HTTP/1.1\r\nHost: example.com\r\n\r\n",
		// IPv6, IDNA, trailing dot, upper case
		"CONNECT [::1]:8080 HTTP/1.1\r\n\r\n",
		"GET http://B\xc3\xbccher.Example./x HTTP/1.1\r\n\r\n",
		// refused: no port, path in CONNECT, userinfo, https and origin form
		"CONNECT example.com HTTP/1.1\r\n\r\n",
		"CONNECT example.com:443/x HTTP/1.1\r\n\r\n",
		"CONNECT user@example.com:443 HTTP/1.1\r\n\r\n",
		"GET http://u:p@example.com/ HTTP/1.1\r\n\r\n",
		"GET https://example.com/ HTTP/1.1\r\n\r\n",
		"GET /secret HTTP/1.1\r\nHost: example.com\r\n\r\n",
		// non-canonical IPv4, zone, port games
		"CONNECT 127.1:80 HTTP/1.1\r\n\r\n",
		"CONNECT [fe80::1%25eth0]:80 HTTP/1.1\r\n\r\n",
		"CONNECT example.com:0 HTTP/1.1\r\n\r\n",
		"CONNECT example.com:+80 HTTP/1.1\r\n\r\n",
		"GET http://example.com:99999/ HTTP/1.1\r\n\r\n",
		// two trailing dots: normalises to a host that normalises again
		"CONNECT 127.0.0.1..:80 HTTP/1.1\r\n\r\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, head string) {
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(head)))
		if err != nil {
			return
		}
		p, r := parseRequest(req)
		if r != nil {
			if r.Code == "" || strings.ContainsAny(r.Message, "\r\n") {
				t.Errorf("refusal %+v: want a code and a one-line message", r)
			}
			return
		}
		if p.target.Port == 0 {
			t.Errorf("accepted %q with port 0", head)
		}
		if h, err := capability.NormalizeHost(p.target.Host); err != nil || h != p.target.Host {
			t.Errorf("accepted host %q is not normalised (%q, %v)", p.target.Host, h, err)
		}
		if s := p.summary(); strings.ContainsAny(s, "/?#@") && !strings.Contains(p.target.Host, ":") {
			t.Errorf("summary %q carries more than the method and host", s)
		}
	})
}
