package proxy

import (
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/internal/socks5"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
)

func TestParseCredentials(t *testing.T) {
	c, err := NewCredentials()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseCredentials(c.String() + "\n")
	if err != nil || back != c {
		t.Errorf("ParseCredentials(String()): got %+v, %v; want %+v", back, err, c)
	}
	if other, _ := NewCredentials(); other.Password == c.Password {
		t.Error("two NewCredentials share a password")
	}
	for _, bad := range []string{"", "user", ":pw", "user:", "us er:pw", "user:p@ss", "user:p:w", "ü:pw", strings.Repeat("a", 256) + ":pw"} {
		if _, err := ParseCredentials(bad); !errors.Is(err, ErrBadCredentials) {
			t.Errorf("ParseCredentials(%q): got %v; want ErrBadCredentials", bad, err)
		}
	}
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// TestAuthHTTP: with credentials set, a request or CONNECT without them or
// with wrong ones is answered 407 with a Basic challenge, audited as
// proxy_auth_required, and nothing is dialled; the right ones are served,
// and Proxy-Authorization never travels upstream.
func TestAuthHTTP(t *testing.T) {
	creds := Credentials{User: "ocfetch", Password: "s3cret"}
	w := newWorld(t, worldOpts{profile: risk.Standard, tune: func(o *Options) { o.Auth = &creds }})
	w.rule(rules.Allow, publicHost, 80)
	w.rule(rules.Allow, publicHost, 443)
	for _, tc := range []struct {
		name, header string
	}{
		{"no credentials", ""},
		{"wrong password", basic("ocfetch", "wrong")},
		{"wrong user", basic("other", "s3cret")},
		{"not Basic", "Bearer s3cret"},
		{"not base64", "Basic !!!"},
		{"no colon", "Basic " + base64.StdEncoding.EncodeToString([]byte("ocfetchs3cret"))},
	} {
		for _, head := range []string{
			"GET http://" + publicHost + "/echo HTTP/1.1\r\nHost: " + publicHost + "\r\n",
			"CONNECT " + publicHost + ":443 HTTP/1.1\r\nHost: " + publicHost + ":443\r\n",
		} {
			t.Run(tc.name+" "+firstLine(head), func(t *testing.T) {
				h := head
				if tc.header != "" {
					h += "Proxy-Authorization: " + tc.header + "\r\n"
				}
				resp, body := w.raw(h + "\r\n")
				if resp.StatusCode != http.StatusProxyAuthRequired || resp.Header.Get(ReasonHeader) != string(refusal.ProxyAuthRequired) {
					t.Errorf("got %d %q (%q); want 407 proxy_auth_required", resp.StatusCode, resp.Header.Get(ReasonHeader), body)
				}
				if got := resp.Header.Get("Proxy-Authenticate"); got != `Basic realm="ocfetch"` {
					t.Errorf("Proxy-Authenticate: got %q", got)
				}
				if strings.Contains(body, "s3cret") {
					t.Errorf("body %q names the password", body)
				}
			})
		}
	}
	if got := w.dials.List(); len(got) != 0 {
		t.Fatalf("unauthenticated requests dialled %v; want nothing", got)
	}
	es := w.waitAudit(12)
	for _, e := range es {
		if e.Outcome != string(refusal.ProxyAuthRequired) || e.Decision != "refused" || e.Status != 407 {
			t.Errorf("audit line %+v; want refused, proxy_auth_required, 407", e)
		}
	}
	if len(es) != 12 {
		t.Errorf("audit lines: got %d; want 12", len(es))
	}

	// The right credentials, in the proxy URL as clients take them.
	c := w.client()
	c.Transport.(*http.Transport).Proxy = http.ProxyURL(&url.URL{Scheme: "http", User: creds.Userinfo(), Host: w.addr})
	for _, u := range []string{"http://" + publicHost + "/echo", "https://" + publicHost + "/echo"} {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatalf("GET %s with the credentials: %v", u, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s with the credentials: %d; want 200", u, resp.StatusCode)
		}
		if got := resp.Header.Get("X-Got-Proxy-Authorization"); got != "" {
			t.Errorf("GET %s: the origin got Proxy-Authorization %q; want none", u, got)
		}
	}
}

// TestAuthSocks: with credentials set, a SOCKS5 client that offers no
// username/password gets "no acceptable method", a wrong pair gets the RFC
// 1929 failure; both are audited and nothing is dialled. The right pair
// is served.
func TestAuthSocks(t *testing.T) {
	creds := Credentials{User: "ocfetch", Password: "s3cret"}
	w := newWorld(t, worldOpts{profile: risk.Standard, tune: func(o *Options) { o.Auth = &creds }})
	w.rule(rules.Allow, publicHost, 80)
	req := socksConnect(publicHost, 80)
	if rep, _, _ := w.socksDial(nil, req); rep != 0x1FF {
		t.Errorf("no credentials offered: got %#x; want no acceptable method", rep)
	}
	for _, bad := range []Credentials{{"ocfetch", "wrong"}, {"other", "s3cret"}, {"ocfetch", "s3cret2"}} {
		if rep, _, _ := w.socksDial(&bad, req); rep != 0x100+socks5.AuthFailed {
			t.Errorf("credentials %v: got %#x; want the auth failure", bad, rep)
		}
	}
	if got := w.dials.List(); len(got) != 0 {
		t.Fatalf("unauthenticated SOCKS clients dialled %v; want nothing", got)
	}
	es := w.waitAudit(4)
	for _, e := range es {
		if e.Outcome != string(refusal.ProxyAuthRequired) || e.Summary != "CONNECT -" {
			t.Errorf("audit line %+v; want CONNECT -, proxy_auth_required", e)
		}
	}
	if len(es) != 4 {
		t.Errorf("audit lines: got %d; want 4", len(es))
	}
	rep, c, br := w.socksDial(&creds, req)
	if rep != socks5.Succeeded {
		t.Fatalf("right credentials: got %#x; want success", rep)
	}
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: "+publicHost+"\r\nConnection: close\r\n\r\n")
	if b, _ := io.ReadAll(br); !strings.HasSuffix(string(b), "hello from "+publicHost) {
		t.Errorf("response through the authenticated tunnel: %q", b)
	}
}

// TestSilentClientsCannotLockOut: local clients without the credentials
// that open connections and send nothing fill every slot, but once they
// have been silent for evictAge, a client with the credentials displaces
// the oldest of them and is served instead of getting 503.
func TestSilentClientsCannotLockOut(t *testing.T) {
	const limit = 4
	creds := Credentials{User: "ocfetch", Password: "s3cret"}
	w := newWorld(t, worldOpts{profile: risk.Standard, tune: func(o *Options) { o.Auth = &creds; o.MaxConcurrent = limit }})
	w.rule(rules.Allow, publicHost, 80)
	var silent []net.Conn
	for range limit {
		c, err := net.Dial("tcp", w.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		silent = append(silent, c)
	}
	waitFor(t, func() bool { return len(w.srv.sem) == limit })
	time.Sleep(evictAge + 100*time.Millisecond)

	c := w.client()
	c.Transport.(*http.Transport).Proxy = http.ProxyURL(&url.URL{Scheme: "http", User: creds.Userinfo(), Host: w.addr})
	resp, err := c.Get("http://" + publicHost + "/echo")
	if err != nil {
		t.Fatalf("GET with the credentials while silent clients hold every slot: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("got %d %q; want 200 (a silent client evicted to make room)", resp.StatusCode, resp.Header.Get(ReasonHeader))
	}
	// The oldest silent client is the one closed to make room (the others
	// may meet the handshake timeout later; that is not what this checks).
	silent[0].SetReadDeadline(time.Now().Add(time.Second))
	if _, err := silent[0].Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the oldest silent client: read gave %v; want EOF (closed to make room)", err)
	}
}
