package pdf

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/content/pdf/pdftest"
	"github.com/ocfetch/ocfetch/refusal"
)

// TestWithoutReexecInit: a program (here a test binary) that extracts a
// PDF without calling reexec.Init gets a named refusal that says what to
// do, at once: not a hang, and not its own tests run again.
func TestWithoutReexecInit(t *testing.T) {
	if os.Getenv(noInitEnv) != "" {
		r, err := Extract(context.Background(), pdftest.Minimal([]string{"hello"}))
		rf, ok := refusal.As(err)
		switch {
		case !ok || rf.Code != refusal.InternalError:
			t.Fatalf("got %+v, %v; want an internal_error refusal", r, err)
		case !strings.Contains(rf.Hint, "reexec.Init"):
			t.Fatalf("hint %q; want it to name reexec.Init", rf.Hint)
		}
		os.Stdout.WriteString("\nNAMED REFUSAL OK\n")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWithoutReexecInit$", "-test.v")
	cmd.Env = append(os.Environ(), noInitEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nNAMED REFUSAL OK\n") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
