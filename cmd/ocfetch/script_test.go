package main

import (
	"io/fs"
	"os"

	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestScripts runs the end-to-end scripts in testdata/script: each runs the
// ocfetch binary (this test binary under that name, see TestMain) as a
// separate process in its own $WORK directory, the workspace root. Setup
// starts two loopback sites per script: $SITE_PORT serves the pages of
// newSite; $OTHER_PORT is a second site that no script allowlists.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// As root the sandbox runs a command as the workspace's
			// owner: $WORK is given to an ordinary user.
			if err := testws.GiveToSandboxUser(env.WorkDir); err != nil {
				return err
			}
			// and the ocfetch that testscript puts on PATH must be
			// reachable to that user.
			for _, d := range filepath.SplitList(env.Getenv("PATH")) {
				if _, err := os.Stat(filepath.Join(d, "ocfetch")); err == nil {
					if err := testws.OpenForSearch(d); err != nil {
						return err
					}
				}
			}
			s, other := startSite(), startSite()
			env.Defer(s.Close)
			env.Defer(other.Close)
			env.Setenv("SITE_PORT", strconv.Itoa(s.port))
			env.Setenv("OTHER_PORT", strconv.Itoa(other.port))
			// The user's configuration directory (trust store, user
			// rules) is the script's own: os.UserConfigDir() under HOME.
			env.Setenv("HOME", filepath.Join(env.WorkDir, ".home"))
			env.Setenv("XDG_CONFIG_HOME", "")
			// Under -race every ocfetch process would otherwise sleep 1s
			// at exit (the race runtime's default atexit_sleep_ms).
			env.Setenv("GORACE", strings.TrimSpace(env.Getenv("GORACE")+" atexit_sleep_ms=0"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status":       cmdStatus,
			"sandbox-owns": cmdSandboxOwns,
		},
	})
}

// scriptEnvKeys are the variables a `status` command passes on.
var scriptEnvKeys = []string{"PATH", "HOME", "TMPDIR", "WORK", "SITE_PORT", "OTHER_PORT", "OCFETCH_DEBUG", "GOCOVERDIR", "GORACE"}

// cmdStatus runs `status CODE COMMAND [ARG...]`: COMMAND as a process in
// the script's directory, its stdout and stderr kept for the stdout and
// stderr checks, and fails unless it exits with exactly CODE. The exit code
// is the CLI contract (0, 2, 3, 4), which `exec` and `! exec` cannot tell
// apart.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status CODE COMMAND [ARG...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range scriptEnvKeys {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	cmd.Stdout, cmd.Stderr = ts.Stdout(), ts.Stderr()
	err = cmd.Run()
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited %d; want %d", args[1], got, want)
	}
}

// cmdSandboxOwns gives each PATH (recursively) to testws.SandboxUser when
// the test runs as root, as a user's own tree is theirs: as root the
// sandbox runs the command as the workspace's owner. A no-op otherwise.
//
//	sandbox-owns PATH...
func cmdSandboxOwns(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: sandbox-owns PATH...")
	}
	if os.Geteuid() != 0 {
		return
	}
	for _, a := range args {
		err := filepath.WalkDir(ts.MkAbs(a), func(p string, _ fs.DirEntry, err error) error {
			if err == nil {
				err = os.Lchown(p, testws.SandboxUser, testws.SandboxUser)
			}
			return err
		})
		ts.Check(err)
	}
}
