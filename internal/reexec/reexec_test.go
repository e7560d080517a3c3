package reexec

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func init() {
	Register("reexec-test-echo", func() int {
		os.Stdout.WriteString("part ran with " + strings.Join(os.Args[1:], ",") + " env=" + os.Getenv(EnvName))
		return 7
	})
}

func TestMain(m *testing.M) {
	Init()
	os.Exit(m.Run())
}

func TestCommandRunsThePartAndPassesItsStatus(t *testing.T) {
	cmd, err := Command(context.Background(), "reexec-test-echo", "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 7 {
		t.Fatalf("exit: got %v; want status 7", err)
	}
	if got, want := out.String(), "part ran with a,b env="; got != want {
		t.Errorf("output: got %q; want %q", got, want)
	}
}

func TestUnknownPartExits127(t *testing.T) {
	cmd, err := Command(context.Background(), "no-such-part")
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 127 {
		t.Fatalf("exit: got %v; want status 127", err)
	}
	if !strings.Contains(stderr.String(), `no part "no-such-part"`) {
		t.Errorf("stderr: got %q; want it to name the part", stderr.String())
	}
}

func TestRegisterRefusesDuplicatesAndEmptyNames(t *testing.T) {
	for _, name := range []string{"", "reexec-test-echo"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q): got no panic; want one", name)
				}
			}()
			Register(name, func() int { return 0 })
		}()
	}
}
