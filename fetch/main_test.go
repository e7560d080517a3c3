package fetch

import (
	"testing"

	"github.com/ocfetch/ocfetch/internal/reexec"
	"github.com/ocfetch/ocfetch/internal/testsupport/testchild"
	"go.uber.org/goleak"
)

// TestMain fails the package if any goroutine outlives the tests: every
// hostile-server test also checks for leaks on its own (see leakCheck).
func TestMain(m *testing.M) {
	reexec.Init() // PDFs are extracted by this binary run again as a child part
	testchild.QuickRaceExit()
	goleak.VerifyTestMain(m)
}
