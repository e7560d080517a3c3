package proxy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/ocfetch/ocfetch/workspace"
)

// ErrCredentialsFileExposed is returned by [LoadOrCreateCredentials] for a
// credentials file that users other than its owner may read or write.
var ErrCredentialsFileExposed = errors.New("proxy: the credentials file is readable or writable by other users")

// DefaultCredentialsFile is where `ocfetch proxy` keeps its credentials:
// os.UserConfigDir()/ocfetch/proxy-credentials.
func DefaultCredentialsFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("proxy: no configuration directory for the credentials file: %w", err)
	}
	return filepath.Join(dir, "ocfetch", "proxy-credentials"), nil
}

// LoadOrCreateCredentials reads the credentials in path ("user:password",
// see [ParseCredentials]), or, when there is no such file, creates it with
// fresh [NewCredentials] (its directory 0700, the file 0600, never
// replacing a file created meanwhile) and reports created. On Unix a file
// that its group or others may access is refused with
// [ErrCredentialsFileExposed]: a secret others can read guards nothing.
// Errors name the file, never its content.
func LoadOrCreateCredentials(path string) (c Credentials, created bool, err error) {
	data, err := workspace.ReadSmallFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return createCredentials(path)
	}
	if err != nil {
		return Credentials{}, false, err
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			return Credentials{}, false, err
		}
		if fi.Mode().Perm()&0o077 != 0 {
			return Credentials{}, false, fmt.Errorf("%w: %s is mode %04o (fix: chmod 600 %s)", ErrCredentialsFileExposed, path, fi.Mode().Perm(), path)
		}
	}
	c, err = ParseCredentials(string(data))
	if err != nil {
		return Credentials{}, false, fmt.Errorf("%s: %w", path, err)
	}
	return c, false, nil
}

func createCredentials(path string) (Credentials, bool, error) {
	c, err := NewCredentials()
	if err != nil {
		return Credentials{}, false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return Credentials{}, false, fmt.Errorf("proxy: credentials file: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Another ocfetch proxy created it first: use its credentials.
		c, _, err := LoadOrCreateCredentials(path)
		return c, false, err
	}
	if err != nil {
		return Credentials{}, false, fmt.Errorf("proxy: credentials file: %w", err)
	}
	_, werr := f.WriteString(c.String() + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return Credentials{}, false, fmt.Errorf("proxy: writing %s: %w", path, werr)
	}
	return c, true, nil
}
