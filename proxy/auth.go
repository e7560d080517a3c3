package proxy

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/ocfetch/ocfetch/refusal"
)

// Credentials are the username and password a client must present to a
// [Server] whose [Options].Auth is set: in Proxy-Authorization: Basic for
// HTTP and CONNECT, in the RFC 1929 username/password sub-negotiation for
// SOCKS5.
type Credentials struct {
	User     string
	Password string
}

// ErrBadCredentials is returned by [ParseCredentials] for text that is not
// "user:password" with both parts made of URL-safe characters.
var ErrBadCredentials = errors.New("proxy: credentials are not user:password")

// NewCredentials returns fresh random credentials: user "ocfetch" and a
// 32-character password from crypto/rand, URL-safe so that they can be put
// in a proxy URL as they are.
func NewCredentials() (Credentials, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return Credentials{}, fmt.Errorf("proxy: random credentials: %w", err)
	}
	return Credentials{User: "ocfetch", Password: base64.RawURLEncoding.EncodeToString(b)}, nil
}

// ParseCredentials reads "user:password" (surrounding white space
// ignored), the form [Credentials.String] writes. Both parts must be 1–255
// bytes of letters, digits and "-._~", so that they travel unescaped in a
// proxy URL and fit SOCKS5's length bytes.
func ParseCredentials(s string) (Credentials, error) {
	user, pass, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || !urlSafe(user) || !urlSafe(pass) {
		return Credentials{}, ErrBadCredentials
	}
	return Credentials{User: user, Password: pass}, nil
}

func urlSafe(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0) {
			return false
		}
	}
	return true
}

// String returns "user:password": secret, for a 0600 file or a proxy URL
// only.
func (c Credentials) String() string { return c.User + ":" + c.Password }

// Userinfo returns the credentials as a URL's userinfo.
func (c Credentials) Userinfo() *url.Userinfo { return url.UserPassword(c.User, c.Password) }

// match reports whether user and password are c's, in time independent of
// where they differ.
func (c *Credentials) match(user, password string) bool {
	u := subtle.ConstantTimeCompare([]byte(user), []byte(c.User))
	p := subtle.ConstantTimeCompare([]byte(password), []byte(c.Password))
	return u&p == 1
}

// authorized reports whether an HTTP request head carries the server's
// credentials in Proxy-Authorization: Basic (always true when the server
// has none).
func (s *Server) authorized(h http.Header) bool {
	if s.auth == nil {
		return true
	}
	return s.basicAuthorized(h.Get("Proxy-Authorization"))
}

// basicAuthorized reports whether v, the value of a Proxy-Authorization or
// (for the metrics) Authorization header, is Basic with the server's
// credentials. The server must have credentials.
func (s *Server) basicAuthorized(v string) bool {
	scheme, b64, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return false
	}
	user, pass, ok := strings.Cut(string(raw), ":")
	return ok && s.auth.match(user, pass)
}

// authRequired is the refusal of a client without the credentials. It
// names neither what was sent nor what is expected.
func authRequired(kind string) *refusal.Error {
	return refusal.Newf(refusal.ProxyAuthRequired, "this proxy accepts only its own credentials (%s)", kind).
		WithHint("use the proxy URL ocfetch gave, with its user:password")
}
