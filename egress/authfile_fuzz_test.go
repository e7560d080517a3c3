package egress

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadProxyAuthFile: the upstream proxy's credentials file, which a
// workspace's settings.json may name. What is accepted is the one line
// of the file, cut at its first ':', with a user and without CR, LF or
// NUL (they would end the Proxy-Authorization line); a refusal wraps
// ErrProxyAuthFile and quotes nothing of the password.
func FuzzReadProxyAuthFile(f *testing.F) {
	for _, s := range []string{
		"user:pass", "user:pass\n", "user:pass\r\n", "user:pa:ss\n", ":pass", "user", "",
		"user:pass\n\n", "user:pa\rss", "us\x00er:pass", "user:pass\nsecond line", strings.Repeat("x", 5000),
	} {
		f.Add([]byte(s))
	}
	path := filepath.Join(f.TempDir(), "proxy-auth")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		user, pass, err := ReadProxyAuthFile(path)
		if err != nil {
			if !errors.Is(err, ErrProxyAuthFile) {
				t.Fatalf("ReadProxyAuthFile(%q): %v does not wrap ErrProxyAuthFile", data, err)
			}
			// The message is the path and fixed wording ("want one line
			// user:pass"), which a short password may happen to be part of.
			msg := strings.ReplaceAll(err.Error(), path, "")
			for _, w := range []string{"want one line user:pass, without control characters", "want one line user:pass"} {
				msg = strings.ReplaceAll(msg, w, "")
			}
			if _, secret, ok := strings.Cut(string(data), ":"); ok && len(secret) >= 6 && strings.Contains(msg, secret) {
				t.Fatalf("ReadProxyAuthFile(%q): error %q quotes the password", data, err)
			}
			return
		}
		if len(data) > maxProxyAuthFile {
			t.Fatalf("ReadProxyAuthFile: accepted a %d-byte file", len(data))
		}
		line := strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
		if user == "" || user+":"+pass != line || strings.Contains(user, ":") {
			t.Fatalf("ReadProxyAuthFile(%q) = %q, %q", data, user, pass)
		}
		if strings.ContainsAny(user+pass, "\r\n\x00") {
			t.Fatalf("ReadProxyAuthFile(%q) = %q, %q: a control character that ends a header line", data, user, pass)
		}
	})
}
