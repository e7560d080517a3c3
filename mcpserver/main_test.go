package mcpserver

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: every
// session, transport, HTTP server and loopback page a test starts must be
// closed by the end of it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
