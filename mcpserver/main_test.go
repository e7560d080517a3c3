package mcpserver

import (
	"fmt"
	"os"
	"testing"

	"github.com/ocfetch/ocfetch/internal/reexec"
	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: every
// session, transport, HTTP server and loopback page a test starts must be
// closed by the end of it. It also removes the binary the end-to-end tests
// build.
func TestMain(m *testing.M) {
	reexec.Init() // PDFs are extracted by this binary run again as a child part
	code := m.Run()
	removeBinary()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
