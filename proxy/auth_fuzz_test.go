package proxy

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// FuzzParseCredentials: the proxy's own credentials file may be edited by
// hand. What is accepted writes back as it reads (String, then Parse) and
// fits SOCKS5's length bytes; a refusal is ErrBadCredentials, which
// quotes nothing of the secret.
func FuzzParseCredentials(f *testing.F) {
	for _, s := range []string{"ocfetch:abc-DEF_123.~", " u:p \n", "u:", ":p", "u:p:q", "u p:x", "ü:p", strings.Repeat("a", 256) + ":p", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCredentials(s)
		if err != nil {
			if !errors.Is(err, ErrBadCredentials) || err.Error() != ErrBadCredentials.Error() {
				t.Fatalf("ParseCredentials: %v; want ErrBadCredentials alone", err)
			}
			return
		}
		if len(c.User) == 0 || len(c.User) > 255 || len(c.Password) == 0 || len(c.Password) > 255 {
			t.Fatalf("ParseCredentials(%q) = %q, %q: lengths outside 1–255", s, c.User, c.Password)
		}
		again, err := ParseCredentials(c.String())
		if err != nil || again != c {
			t.Fatalf("ParseCredentials(%q) = %+v; its String reads back as %+v, %v", s, c, again, err)
		}
		if u := c.Userinfo().String(); u != c.String() {
			t.Fatalf("Userinfo %q: the credentials are escaped in a URL", u)
		}
	})
}

// FuzzBasicAuthorized: a client's Proxy-Authorization value. Only the
// server's own user and password, Basic and base64, let a client in; no
// value is authorised by a server without a match.
func FuzzBasicAuthorized(f *testing.F) {
	good := base64.StdEncoding.EncodeToString([]byte("ocfetch:s3cret"))
	for _, s := range []string{"Basic " + good, "basic " + good, "Basic  " + good + " ", "Bearer " + good, "Basic", "Basic " + good[:len(good)-2],
		"Basic " + base64.StdEncoding.EncodeToString([]byte("ocfetch:s3cre")), "Basic " + base64.StdEncoding.EncodeToString([]byte("ocfetch:s3cret:")),
		"Basic " + base64.StdEncoding.EncodeToString([]byte(":")), ""} {
		f.Add(s)
	}
	s := &Server{auth: &Credentials{User: "ocfetch", Password: "s3cret"}}
	f.Fuzz(func(t *testing.T, v string) {
		if !s.basicAuthorized(v) {
			return
		}
		scheme, b64, _ := strings.Cut(v, " ")
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
		if !strings.EqualFold(scheme, "basic") || err != nil || string(raw) != "ocfetch:s3cret" {
			t.Fatalf("basicAuthorized(%q): let in with %q", v, raw)
		}
	})
}
