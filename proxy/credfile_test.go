package proxy

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestLoadOrCreateCredentials(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", "ocfetch", "proxy-credentials")
	c, created, err := LoadOrCreateCredentials(path)
	if err != nil || !created {
		t.Fatalf("first call: got %v, created %v; want new credentials", err, created)
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("file mode: got %v, %v; want 0600", fi.Mode(), err)
		}
		di, _ := os.Stat(filepath.Dir(path))
		if di.Mode().Perm() != 0o700 {
			t.Errorf("directory mode: got %v; want 0700", di.Mode())
		}
	}
	again, created, err := LoadOrCreateCredentials(path)
	if err != nil || created || again != c {
		t.Errorf("second call: got %+v, created %v, %v; want the same credentials read back", again, created, err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	os.Chmod(path, 0o644)
	if _, _, err := LoadOrCreateCredentials(path); !errors.Is(err, ErrCredentialsFileExposed) || strings.Contains(err.Error(), c.Password) {
		t.Errorf("mode 0644: got %v; want ErrCredentialsFileExposed without the password", err)
	}
	os.Chmod(path, 0o600)
	os.WriteFile(path, []byte("not credentials"), 0o600)
	if _, _, err := LoadOrCreateCredentials(path); !errors.Is(err, ErrBadCredentials) || !strings.Contains(err.Error(), path) {
		t.Errorf("malformed file: got %v; want ErrBadCredentials naming the file", err)
	}
}
