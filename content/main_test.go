package content

import (
	"testing"

	"go.uber.org/goleak"
)

// PDF extraction runs on its own goroutine (see convertPDF): none may
// outlive the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
