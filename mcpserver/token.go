package mcpserver

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// ErrNoToken is returned by [Serve] for streamable HTTP without
// [Options.BearerToken]: every client of the HTTP transport must
// authenticate, as any local user can reach a loopback port.
var ErrNoToken = errors.New("mcpserver: streamable HTTP needs a bearer token (Options.BearerToken)")

// TokenFileName is the name of the bearer token file in the user's
// configuration directory ([DefaultTokenPath]).
const TokenFileName = "mcp-token"

// maxTokenFile bounds what LoadOrCreateToken reads.
const maxTokenFile = 4 << 10

// DefaultTokenPath is os.UserConfigDir()/ocfetch/mcp-token.
func DefaultTokenPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("mcpserver: token file: %w", err)
	}
	return filepath.Join(dir, "ocfetch", TokenFileName), nil
}

// LoadOrCreateToken returns the bearer token kept in the file at path,
// creating it (and its directory, mode 0700) with a new random token,
// mode 0600, if it does not exist. An existing file must be a regular file
// that only its owner can read or write (on Unix), holding one token of
// printable ASCII; anything else is an error naming the file, never a
// token silently replaced.
func LoadOrCreateToken(path string) (string, error) {
	tok, err := readToken(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return tok, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("mcpserver: token file %s: %w", path, err)
	}
	var b [32]byte
	rand.Read(b[:]) // never fails (crypto/rand.Read)
	tok = base64.RawURLEncoding.EncodeToString(b[:])
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return readToken(path) // another ocfetch mcp created it first
	}
	if err != nil {
		return "", fmt.Errorf("mcpserver: token file %s: %w", path, err)
	}
	_, werr := f.WriteString(tok + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return "", fmt.Errorf("mcpserver: token file %s: %w", path, werr)
	}
	return tok, nil
}

func readToken(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		return "", fmt.Errorf("mcpserver: token file %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("mcpserver: token file %s is not a regular file", path)
	}
	if err := checkTokenMode(fi); err != nil {
		return "", fmt.Errorf("mcpserver: token file %s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("mcpserver: token file %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return "", fmt.Errorf("mcpserver: token file %s: %w", path, err)
	}
	tok := strings.TrimSpace(string(data))
	if len(data) > maxTokenFile || !validToken(tok) {
		return "", fmt.Errorf("mcpserver: token file %s does not hold one token (16 to 512 printable ASCII characters, no spaces); delete it to get a new one", path)
	}
	return tok, nil
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
