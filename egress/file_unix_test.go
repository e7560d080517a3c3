//go:build unix

package egress

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOperatorFilesRefuseFIFO: a FIFO given as the CA or credentials file
// is refused at once, not waited on for a writer.
func TestOperatorFilesRefuseFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if _, err := LoadCAFile(fifo); !errors.Is(err, ErrCAFile) {
		t.Errorf("LoadCAFile(FIFO) = %v; want ErrCAFile", err)
	}
	if _, _, err := ReadProxyAuthFile(fifo); !errors.Is(err, ErrProxyAuthFile) {
		t.Errorf("ReadProxyAuthFile(FIFO) = %v; want ErrProxyAuthFile", err)
	}
}
