package fetch

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any goroutine outlives the tests: every
// hostile-server test also checks for leaks on its own (see leakCheck).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
