package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/socks5"
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
		// methods the audit log cannot carry as they are; a field name
		// with a space before its colon
		"GET# http://example.com/ HTTP/1.1\r\n\r\n",
		"P%T http://example.com/ HTTP/1.1\r\n\r\n",
		"POST http://example.com/ HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n",
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
		if p.target.Port() == 0 {
			t.Errorf("accepted %q with port 0", head)
		}
		if h, err := capability.NormalizeHost(p.target.Host()); err != nil || h != p.target.Host() {
			t.Errorf("accepted host %q is not normalised (%q, %v)", p.target.Host(), h, err)
		}
		if s := p.summary(); strings.ContainsAny(s, "/?#@") && !strings.Contains(p.target.Host(), ":") {
			t.Errorf("summary %q carries more than the method and host", s)
		}
		// Whatever is accepted can be audited: an accepted request whose
		// line the audit log refused would be served unrecorded.
		e := audit.Entry{Time: time.Now(), ExecutionID: "x", Tool: AuditTool, Summary: p.summary(),
			Decision: audit.DecisionAllow, DecidedBy: audit.ByRule, Outcome: audit.OutcomeOK}
		if err := e.Validate(); err != nil {
			t.Errorf("accepted %q, whose audit line is invalid: %v", head, err)
		}
	})
}

// FuzzSocksHandshake feeds arbitrary bytes to the SOCKS5 parsers in the
// order a connection runs them: greeting, username/password, request,
// and judges the request as the proxy does (socksTarget).
// Whatever request is accepted names a CONNECT to a normalised host with a
// port; every refusal carries a reply code and a one-line message.
func FuzzSocksHandshake(f *testing.F) {
	seeds := [][]byte{
		// greeting (no auth), CONNECT to a domain
		append([]byte{5, 1, 0}, socksConnect("example.com", 443)...),
		// greeting (user/pass), credentials, CONNECT IPv4
		{5, 1, 2, 1, 1, 'u', 1, 'p', 5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x90},
		// CONNECT IPv6 (IPv4-mapped loopback)
		{5, 1, 0, 5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1, 0, 80},
		// BIND, UDP ASSOCIATE, an unknown address type
		{5, 1, 0, 5, 2, 0, 1, 1, 2, 3, 4, 0, 80},
		{5, 1, 0, 5, 3, 0, 1, 0, 0, 0, 0, 0, 0},
		{5, 1, 0, 5, 1, 0, 9, 1, 2, 3, 4, 0, 80},
		// hostile domains: a NUL, two trailing dots, a non-canonical IPv4
		append([]byte{5, 1, 0}, socksConnect("a\x00b", 443)...),
		append([]byte{5, 1, 0}, socksConnect("localhost..", 8080)...),
		append([]byte{5, 1, 0}, socksConnect("127.1", 8080)...),
		// truncated everywhere
		{5}, {5, 2, 0}, {5, 1, 2, 1, 9},
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		methods, err := socks5.ReadGreeting(r)
		if err != nil {
			return
		}
		if len(methods) == 0 {
			t.Fatalf("greeting %x accepted with no method", in)
		}
		if socks5.ChooseMethod(methods, true) == socks5.MethodUserPass {
			if _, _, err := socks5.ReadUserPass(r); err != nil {
				return
			}
		}
		req, err := socks5.ReadRequest(r)
		var se *socks5.Error
		if errors.As(err, &se) {
			checkSocksError(t, se)
			return
		}
		if err != nil {
			return
		}
		tg, se := socksTarget(req)
		if se != nil {
			checkSocksError(t, se)
			return
		}
		if req.Cmd != socks5.CmdConnect || tg.Port() == 0 {
			t.Errorf("accepted command %d port %d", req.Cmd, tg.Port())
		}
		if h, err := capability.NormalizeHost(tg.Host()); err != nil || h != tg.Host() {
			t.Errorf("accepted host %q is not normalised (%q, %v)", tg.Host(), h, err)
		}
	})
}

func checkSocksError(t *testing.T, se *socks5.Error) {
	t.Helper()
	if se.Rep == socks5.Succeeded || se.Err == nil || se.Err.Code == "" || strings.ContainsAny(se.Err.Message, "\r\n") {
		t.Errorf("refusal %#x %+v: want a failure reply, a code and a one-line message", se.Rep, se.Err)
	}
}
