package pdf

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

const limitSelfChildEnv = "OCFETCH_PDF_LIMITSELF_CHILD"

// TestLimitSelfDarwin: the child's limits can be set on macOS. There
// setrlimit(RLIMIT_AS) fails with EINVAL for any limit below the virtual
// size the process already has (hundreds of GiB: the shared cache), and
// the child refused to extract without its limits: every PDF was an
// internal_error. limitSelf runs in a child process of its own here (the
// CPU limit would bound this test process too). macOS only.
func TestLimitSelfDarwin(t *testing.T) {
	if os.Getenv(limitSelfChildEnv) != "" {
		if err := limitSelf(childMemory, 5); err != nil {
			fmt.Fprintln(os.Stderr, "limitSelf:", err)
			os.Exit(3)
		}
		os.Exit(4) // set: a code of its own (go test refuses os.Exit(0) in a test)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLimitSelfDarwin$", "-test.count=1")
	cmd.Env = append(os.Environ(), limitSelfChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
		t.Fatalf("limitSelf in a child: %v: %s", err, out)
	}
}
