package pdf

import (
	"os"
	"testing"

	"github.com/ocfetch/ocfetch/internal/reexec"
	"github.com/ocfetch/ocfetch/internal/testsupport/testchild"
	"go.uber.org/goleak"
)

// noInitEnv makes this test binary behave as a program that forgot
// reexec.Init (TestWithoutReexecInit); it is inherited by the children.
const noInitEnv = "OCFETCH_PDF_TEST_NO_INIT"

// Extract re-executes this test binary as its "pdf-extract" part:
// reexec.Init runs it. No goroutine may outlive the tests.
func TestMain(m *testing.M) {
	if os.Getenv(noInitEnv) == "" {
		reexec.Init()
	}
	testchild.QuickRaceExit()
	goleak.VerifyTestMain(m)
}
