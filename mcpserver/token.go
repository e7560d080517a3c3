package mcpserver

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ocfetch/ocfetch/internal/secretfile"
)

// ErrNoToken is returned by [Serve] for streamable HTTP without
// [Options.BearerToken]: every client of the HTTP transport must
// authenticate, as any local user can reach a loopback port.
var ErrNoToken = errors.New("mcpserver: streamable HTTP needs a bearer token (Options.BearerToken)")

// TokenFileName is the name of the bearer token file in the user's
// configuration directory ([DefaultTokenPath]).
const TokenFileName = secretfile.MCPToken

// DefaultTokenPath is os.UserConfigDir()/ocfetch/mcp-token.
func DefaultTokenPath() (string, error) {
	p, err := secretfile.DefaultPath(TokenFileName)
	if err != nil {
		return "", fmt.Errorf("mcpserver: token file: %w", err)
	}
	return p, nil
}

// LoadOrCreateToken returns the bearer token kept in the file at path,
// creating it (and its directory, mode 0700) with a new random token,
// mode 0600, if it does not exist. An existing file must be a regular file
// that only its owner can read or write (its mode on Unix, its DACL on
// Windows), holding one token of printable ASCII; anything else is an
// error naming the file, never a token silently replaced
// (internal/secretfile).
func LoadOrCreateToken(path string) (string, error) {
	tok, _, err := secretfile.LoadOrCreate(path, func() (string, error) {
		var b [32]byte
		rand.Read(b[:]) // never fails (crypto/rand.Read)
		return base64.RawURLEncoding.EncodeToString(b[:]), nil
	}, checkToken)
	if err != nil {
		return "", fmt.Errorf("mcpserver: token file %w", err)
	}
	return tok, nil
}

func checkToken(tok string) error {
	if !validToken(tok) {
		return errors.New("does not hold one token (16 to 512 printable ASCII characters, no spaces); delete it to get a new one")
	}
	return nil
}

func validToken(tok string) bool {
	if len(tok) < 16 || len(tok) > 512 {
		return false
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] <= ' ' || tok[i] > '~' {
			return false
		}
	}
	return true
}

// authorized reports whether r carries "Authorization: Bearer <token>",
// compared in constant time.
func authorized(r *http.Request, token string) bool {
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}
