// Package pdf extracts the text of a PDF in a child process that cannot
// outgrow or outlive its call.
//
// PDF text comes from github.com/ledongthuc/pdf, a maintained pure-Go
// reader that is not hardened against hostile files: some make it loop
// forever, recurse until the stack overflows, or inflate a content stream
// to gigabytes (a 0.8 MB file reached 664 MB of RSS in the calling
// process). So [Extract] never runs it in the caller: the running
// executable is started again as its "pdf-extract" part
// (internal/reexec), reads the body on standard input and answers on
// standard output. The child
//   - sets its own address-space limit (1 GiB above what the Go runtime
//     has mapped at start) and CPU limit (the timeout, rounded up, plus a
//     second) before it reads anything, on Linux and the BSDs; on macOS
//     the CPU limit only (macOS does not enforce RLIMIT_AS, and refuses
//     one below the virtual size a process already has); on Windows there
//     is no rlimit; there, and on macOS, memory is bounded by a soft Go
//     memory limit of 384 MiB in the child and the kill below;
//   - is killed when the call's ctx is done or [Timeout] (10 s) has passed;
//   - returns at most 16 MiB of text, and the caller reads no more.
//
// At most two children run at once. The precheck (precheck.go) still runs,
// in the child: it refuses at once the structures known to hang the
// library (a cross-reference cycle, a self-extending object stream, absurd
// sizes) with [ErrUnsafe], instead of letting them spend the CPU limit
// and end as [ErrTooSlow]. It is no longer what protects the caller: an
// upgrade of the library that adds a new loop costs a killed child, not
// a stuck goroutine in the server.
//
// Wiring: main calls reexec.Init first thing (cmd/ocfetch does), and so
// does TestMain of every package whose tests extract PDFs:
//
//	func TestMain(m *testing.M) {
//		reexec.Init()
//		os.Exit(m.Run())
//	}
//
//	r, err := pdf.Extract(ctx, body) // r.Text, r.Pages, r.Read
//
// A program that lacks the call gets an internal_error refusal whose hint
// says so, not a hang. Package pdftest builds the PDFs the tests use.
package pdf
