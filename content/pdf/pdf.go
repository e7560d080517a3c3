package pdf

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/internal/reexec"
	"github.com/ocfetch/ocfetch/refusal"
)

// Limits of one extraction. Variables so that tests can shorten them.
var (
	// Timeout bounds one extraction (the child is killed then), on top of
	// the caller's ctx.
	Timeout = 10 * time.Second
	// childMemory is the child's address-space limit (Linux and the
	// BSDs; not macOS, see limits_darwin.go).
	childMemory int64 = 1 << 30
	childHeap   int64 = 384 << 20
)

const (
	// maxText bounds the text a child returns: a longer text is cut (on a
	// rune boundary) and Result.Cut says so.
	maxText = 16 << 20
	// maxBody bounds what a child reads; the fetch cap is far below it.
	maxBody = 64 << 20
	// concurrency bounds the children running at once, so concurrent calls
	// of a long-running server cannot multiply the memory they use.
	concurrency = 2
	// partName is the reexec part that extracts (child.go).
	partName = "pdf-extract"
	// magic opens the child's answer: what Extract reads is from its own
	// part, not from a program that happens to be the executable.
	magic = "ocfetch-pdf-extract/1 "
)

// Result is a PDF's text.
type Result struct {
	Text  string // pages separated by a blank line; valid UTF-8
	Pages int    // pages found (one more than Read when there were more)
	Read  int    // pages read, at most 1000
	Cut   bool   // Text was cut at 16 MiB
}

// Errors Extract returns (wrapped) for a PDF whose text could not be
// extracted; each names the outcome, none carries the body.
var (
	// ErrUnsafe: the precheck found a structure the library cannot handle
	// (a cross-reference cycle, a self-extending object stream, absurd
	// sizes): refused at once instead of spending the limits.
	ErrUnsafe = errors.New("structure the PDF reader cannot handle safely")
	// ErrUnreadable: the library could not read the file.
	ErrUnreadable = errors.New("the PDF could not be read")
	// ErrTooSlow: the extraction ran past Timeout and was killed.
	ErrTooSlow = errors.New("PDF text extraction took too long")
	// ErrLimits: the child passed its memory, stack or CPU limit and was
	// stopped.
	ErrLimits = errors.New("PDF text extraction needed more memory or CPU than it is allowed")
)

var slots = make(chan struct{}, concurrency)

// Extract returns the text of the PDF in body. It runs the extraction in
// a child process, the running executable re-executed as its
// "pdf-extract" part (internal/reexec), so that no PDF can outgrow or
// outlive the call: the child has an address-space limit of 1 GiB (Linux
// and the BSDs) and a CPU limit (Unix; on Windows there is no rlimit), a
// Go memory limit of 384 MiB (everywhere: what bounds its memory on macOS
// and Windows, with the kill), is killed when ctx is done or
// Timeout has passed, and returns at most 16 MiB of text. The calling
// process only holds the body and the text.
//
// The program must call reexec.Init first thing in main (and so must
// TestMain of a package whose tests extract PDFs): otherwise the child is
// the program itself, and Extract returns an internal_error refusal that
// says so instead of waiting for it. In a test binary without that call,
// the child is told to run no test, so it exits at once.
//
// Errors: ctx.Err() when ctx is done; ErrUnsafe, ErrUnreadable,
// ErrTooSlow or ErrLimits (wrapped) for a PDF whose text could not be
// extracted; a *refusal.Error (internal_error) when the child cannot be
// started or is not the PDF part.
func Extract(ctx context.Context, body []byte) (Result, error) {
	select {
	case slots <- struct{}{}:
		defer func() { <-slots }()
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	cctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var args []string
	if testing.Testing() {
		// A test binary that lacks reexec.Init in TestMain runs no test.
		args = []string{"-test.run=^$", "-test.count=1"}
	}
	cmd, err := reexec.Command(cctx, partName, args...)
	if err != nil {
		return Result{}, unavailable("the executable cannot be found").Wrap(err)
	}
	cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", cpuEnv, cpuSeconds(Timeout)))
	cmd.Stdin = bytes.NewReader(body)
	var out, stderr boundedBuffer
	out.limit, stderr.limit = maxText+64<<10, 4<<10
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if cctx.Err() != nil {
		return Result{}, fmt.Errorf("%w (%s)", ErrTooSlow, Timeout)
	}
	header, text, ok := strings.Cut(out.String(), "\n")
	if !strings.HasPrefix(header, magic) {
		var exit *exec.ExitError
		if errors.As(runErr, &exit) && (!exit.Exited() || strings.Contains(stderr.String(), "fatal error:")) {
			// Killed by a signal (SIGXCPU, SIGKILL), or the Go runtime
			// stopped it (out of memory under the limit, stack overflow).
			return Result{}, ErrLimits
		}
		return Result{}, unavailable("the child process did not answer as the PDF part")
	}
	var h childHeader
	if err := json.Unmarshal([]byte(strings.TrimPrefix(header, magic)), &h); err != nil || !ok {
		return Result{}, unavailable("the PDF part's answer is malformed")
	}
	switch {
	case h.Unsafe == ErrUnsafe.Error():
		return Result{}, ErrUnsafe
	case h.Unsafe != "":
		return Result{}, fmt.Errorf("%w: %s", ErrUnsafe, h.Unsafe)
	case h.Error != "":
		return Result{}, ErrUnreadable
	}
	return Result{Text: text, Pages: h.Pages, Read: h.Read, Cut: h.Cut}, nil
}

// unavailable is the refusal for a child that is not the PDF part: the
// program did not call reexec.Init, or the executable is gone.
func unavailable(why string) *refusal.Error {
	return refusal.Newf(refusal.InternalError, "PDF text extraction is unavailable: %s", why).
		WithHint("the program must call reexec.Init() first thing in main (and in TestMain of tests that extract PDFs)")
}

// cpuSeconds is the child's CPU limit for a call bounded by d: d rounded
// up, plus one second for start-up.
func cpuSeconds(d time.Duration) int { return int((d+time.Second-1)/time.Second) + 1 }

// boundedBuffer keeps the first limit bytes written to it and drops the
// rest (a child cannot make the parent hold more).
type boundedBuffer struct {
	bytes.Buffer
	limit int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// childHeader is the first line of the child's answer, after magic; the
// text follows it.
type childHeader struct {
	Pages  int    `json:"pages"`
	Read   int    `json:"read"`
	Cut    bool   `json:"cut,omitempty"`
	Unsafe string `json:"unsafe,omitempty"` // the precheck's reason
	Error  string `json:"error,omitempty"`  // the library's failure
}
