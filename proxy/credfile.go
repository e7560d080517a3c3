package proxy

import (
	"fmt"

	"github.com/ocfetch/ocfetch/internal/secretfile"
)

// ErrCredentialsFileExposed is returned by [LoadOrCreateCredentials] for a
// credentials file that users other than its owner may read or write.
var ErrCredentialsFileExposed = secretfile.ErrExposed

// DefaultCredentialsFile is where `ocfetch proxy` keeps its credentials:
// os.UserConfigDir()/ocfetch/proxy-credentials.
func DefaultCredentialsFile() (string, error) {
	p, err := secretfile.DefaultPath(secretfile.ProxyCredentials)
	if err != nil {
		return "", fmt.Errorf("proxy: no configuration directory for the credentials file: %w", err)
	}
	return p, nil
}

// LoadOrCreateCredentials reads the credentials in path ("user:password",
// see [ParseCredentials]), or, when there is no such file, creates it with
// fresh [NewCredentials] (its directory 0700, the file 0600, never
// replacing a file created meanwhile) and reports created. A file that
// users other than its owner may access (its group or other mode bits on
// Unix, its DACL on Windows) is refused with [ErrCredentialsFileExposed]:
// a secret others can read guards nothing.
// Errors name the file, never its content (internal/secretfile).
func LoadOrCreateCredentials(path string) (c Credentials, created bool, err error) {
	s, created, err := secretfile.LoadOrCreate(path, func() (string, error) {
		c, err := NewCredentials()
		return c.String(), err
	}, func(s string) error {
		_, err := ParseCredentials(s)
		return err
	})
	if err != nil {
		return Credentials{}, false, fmt.Errorf("proxy: credentials file %w", err)
	}
	c, err = ParseCredentials(s)
	return c, created, err
}
