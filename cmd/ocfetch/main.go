package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/ocfetch/ocfetch/internal/reexec"
	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/startpages" // one-shot commands start with their pages mapped
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/sandbox"
)

// The exit codes of the CLI contract.
const (
	exitOK       = 0
	exitInternal = 1
	exitUsage    = 2
	exitRefused  = 3
	exitFailed   = 4
	// exitInterrupted is what a shell reports for a command ended by
	// SIGINT (128+2); get and search use it when the call was cancelled
	// ([interrupted]).
	exitInterrupted = 130
)

// interrupted is the error of a call the user interrupted (SIGINT or
// SIGTERM): exit 130, as a shell reports an interrupted command; under
// --json (asJSON) after the one object --json promises, reason
// cancelled, which report (the command's own error reporter) writes.
func interrupted(asJSON bool, report func(error) error) error {
	if !asJSON {
		return &exitError{code: exitInterrupted, msg: "interrupted"}
	}
	err := report(refusal.New(refusal.Cancelled, "interrupted: the call was cancelled before it finished"))
	if e, ok := err.(*exitError); ok {
		e.code = exitInterrupted
	}
	return err
}

func main() {
	reexec.Init() // a child part of ocfetch (the sandbox's first process, the PDF extractor) runs instead, and exits
	if !watchesChanges(os.Args[1:]) {
		securefile.DisableNotification()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one ocfetch command line and returns its exit code. It is
// the whole program minus the process: main, the in-process tests and the
// testscript end-to-end tests all go through it.
// watchesChanges reports whether the command args name serves until
// stopped (startpages.LongRunning: mcp, proxy, run), the processes whose
// many calls change notification pays for. A one-shot command checks its
// policy files with stats instead (securefile.DisableNotification): the
// watches on every directory above them would cost it more than the stats
// they spare.
func watchesChanges(args []string) bool {
	return slices.Contains(startpages.LongRunning, commandFor(args))
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return execute(ctx, newApp(stdin, stdout, stderr), args)
}

// execute runs args against a (whose terminal checks and egress options
// tests may have replaced), prints a failure's one line and hint on
// stderr, and returns the exit code.
func execute(ctx context.Context, a *app, args []string) int {
	stderr := a.stderr
	cmd := newRootCmd(a, commandFor(args))
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	a.stopAuditExport()
	if err == nil {
		return exitOK
	}
	e := asExitError(err)
	if !e.quiet {
		fmt.Fprintln(stderr, "ocfetch: "+safetext.Line(e.Error()))
		if e.hint != "" {
			fmt.Fprintln(stderr, "hint: "+safetext.Line(e.hint))
		}
		if e.redirectTo != "" {
			fmt.Fprintln(stderr, "redirect_to: "+safetext.Line(e.redirectTo))
		}
	}
	return e.code
}

// exitError is an error that carries the process exit code, and the one
// line (plus hint) that says why. Every subcommand returns one; an error of
// any other type is cobra's own (unknown command, bad flag, wrong argument
// count) and is a usage error.
type exitError struct {
	code   int
	reason refusal.Code // set for refusals and failures
	msg    string
	hint   string
	// quiet means the command already reported the error (get --json
	// prints it as the JSON object on stdout).
	quiet bool
	// redirectTo is the full Location of a refused off-target redirect,
	// printed for the user on stderr after the hint (get only).
	redirectTo string
	err        error
}

func (e *exitError) Error() string {
	if e.reason != "" {
		return string(e.reason) + ": " + e.msg
	}
	return e.msg
}

func (e *exitError) Unwrap() error { return e.err }

// usageErrorf is exit 2 with a hint, which usually names the --help to read.
func usageErrorf(hint, format string, args ...any) *exitError {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...), hint: hint}
}

// refusalError is exit 3 for a refusal by policy, exit 4 for a failure of
// the request itself (refusal.Code.Policy decides).
func refusalError(r *refusal.Error) *exitError {
	return &exitError{code: codeFor(r.Code), reason: r.Code, msg: r.Message, hint: r.Hint, err: r}
}

// codeFor maps a reason code to its exit code.
func codeFor(c refusal.Code) int {
	if c.Policy() {
		return exitRefused
	}
	return exitFailed
}

// internalErrorf is exit 1: something went wrong that is neither the
// user's input nor a policy decision nor the remote end.
func internalErrorf(format string, args ...any) *exitError {
	return &exitError{code: exitInternal, msg: fmt.Sprintf(format, args...)}
}

// classify turns an error from a package into an exit error: a refusal
// keeps its code, anything else is internal.
func classify(err error) *exitError {
	if err == nil {
		return nil
	}
	err = sandbox.AsPolicyReadOnly(err)
	var e *exitError
	if errors.As(err, &e) {
		return e
	}
	if r, ok := refusal.As(err); ok {
		return refusalError(r)
	}
	return &exitError{code: exitInternal, msg: err.Error(), err: err}
}

// asExitError is what run uses: an unclassified error at this point came
// from cobra's parsing and is a usage error.
func asExitError(err error) *exitError {
	var e *exitError
	if errors.As(err, &e) {
		return e
	}
	return &exitError{code: exitUsage, msg: err.Error(), hint: "run 'ocfetch --help' for usage", err: err}
}
