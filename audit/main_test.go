package audit_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"go.uber.org/goleak"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/workspace"
)

// With OCFETCH_AUDIT_CHILD=1 the test binary is an appender process for
// TestConcurrentProcesses.
const (
	envChild = "OCFETCH_AUDIT_CHILD"
	envRoot  = "OCFETCH_AUDIT_ROOT"
	envID    = "OCFETCH_AUDIT_ID"
	envN     = "OCFETCH_AUDIT_N"
)

func TestMain(m *testing.M) {
	if os.Getenv(envChild) != "" {
		log := audit.Open(workspace.Workspace{Root: os.Getenv(envRoot)})
		n, _ := strconv.Atoi(os.Getenv(envN))
		for i := range n {
			if err := log.Append(entry(os.Getenv(envID), i)); err != nil {
				fmt.Fprintln(os.Stderr, "child:", err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
