package content

import (
	"testing"

	"github.com/ocfetch/ocfetch/internal/reexec"
	"github.com/ocfetch/ocfetch/internal/testsupport/testchild"
	"go.uber.org/goleak"
)

// PDFs are extracted in a child process: this test binary run again as
// the "pdf-extract" part, which reexec.Init runs. No goroutine may outlive
// the tests.
func TestMain(m *testing.M) {
	reexec.Init()
	testchild.QuickRaceExit()
	goleak.VerifyTestMain(m)
}
