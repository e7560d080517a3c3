// Package reexec lets the ocfetch binary run parts of itself as a child
// process: the PDF extractor under resource limits, the shell sandbox's
// forwarder inside a new network namespace. A part is registered by name
// in an init function; the child is the running executable started with
// the environment variable [EnvName] set to that name, and [Init], called
// first thing in main (and in TestMain of a package that starts children),
// runs the part instead of the program and exits.
//
// Wiring:
//
//	func init() { reexec.Register("pdf-extract", extractMain) }
//
//	func main() {
//		reexec.Init() // never returns in a child
//		...
//	}
//
//	cmd, err := reexec.Command(ctx, "pdf-extract", args...)
//
// The variable names a part only; what the part does with its standard
// streams and arguments is its own contract. A child never sees the
// variable (Init removes it), so a part that starts the real ocfetch again
// gets ocfetch.
package reexec

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
)

// EnvName is the environment variable that names the part a child runs.
const EnvName = "OCFETCH_REEXEC"

var (
	mu    sync.Mutex
	parts = map[string]func() int{}
)

// Register makes main the part called name. main returns the child's exit
// status. It panics if name is empty or already registered: both are
// programming errors found at start-up.
func Register(name string, main func() int) {
	mu.Lock()
	defer mu.Unlock()
	if name == "" {
		panic("reexec: empty part name")
	}
	if _, dup := parts[name]; dup {
		panic("reexec: part " + name + " registered twice")
	}
	parts[name] = main
}

// Init runs the part named by [EnvName] and exits with its status, or
// returns at once when the variable is unset. An unknown name exits with
// status 127 and a line on standard error: a child asked for a part this
// binary does not have.
func Init() {
	name, ok := os.LookupEnv(EnvName)
	if !ok {
		return
	}
	os.Unsetenv(EnvName)
	mu.Lock()
	main := parts[name]
	mu.Unlock()
	if main == nil {
		fmt.Fprintf(os.Stderr, "ocfetch: no part %q in this binary\n", name)
		os.Exit(127)
	}
	os.Exit(main())
}

// Command returns a command that runs the part name of the current
// executable with args, bound to ctx (killed when ctx is done). Its
// environment is the caller's plus [EnvName]; callers that want a smaller
// one set cmd.Env themselves and must keep [EnvName]=name in it (see
// [Env]).
func Command(ctx context.Context, name string, args ...string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("reexec: cannot find this executable: %w", err)
	}
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Env = append(os.Environ(), Env(name))
	return cmd, nil
}

// Env returns the "NAME=value" entry that makes a child run part name.
func Env(name string) string { return EnvName + "=" + name }
