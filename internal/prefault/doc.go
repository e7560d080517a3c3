// Package prefault maps, as the process starts, the memory a one-shot
// ocfetch command is about to touch, so that the kernel fills the page
// tables in two system calls instead of hundreds of page faults.
//
// A static ocfetch binary touches some 900 pages before main runs: the
// code and read-only data of about 250 packages being initialised, and
// the first megabytes of the Go heap they allocate. On a virtual machine
// a page fault is a trip through the hypervisor (about 20 µs each on the
// project's benchmark VM against under 1 µs on bare metal), which made
// process start, not the fetch, most of `ocfetch get`'s time. On Linux 5.14
// and later the package's init asks for the binary's read-only segments
// with madvise(MADV_POPULATE_READ) — pages already in the page cache,
// mapped, not read — and for the heap's first chunk (at most
// [HeapBytes]) with madvise(MADV_POPULATE_WRITE). On an older kernel the
// calls fail and change nothing; on other systems the package is empty.
//
// Only one-shot commands are prefaulted. A long-running one (mcp, proxy,
// run: [LongRunning]) and a child part of the binary (the environment
// variable [ReexecEnv] set) are left alone, so their resident set stays
// what they use: prefaulting counts every page of the binary in the
// process's RSS (shared page-cache pages, no memory of its own, but a
// server's RSS is a figure people watch).
//
// The package imports nothing but syscall and unsafe, so that it is
// initialised right after syscall, before the dependencies whose
// initialisation it speeds up; TestImportsStayMinimal keeps it so. The
// command imports it for its side effect:
//
//	import _ "github.com/ocfetch/ocfetch/internal/prefault"
package prefault

// HeapBytes bounds the heap prefaulted at start: the first chunk the Go
// runtime maps (4 MiB), about twice what a one-shot command's start
// allocates.
const HeapBytes = 4 << 20

// LongRunning names the ocfetch commands that serve until stopped; a
// command line naming one of them is not prefaulted.
var LongRunning = []string{"mcp", "proxy", "run"}

// ReexecEnv is internal/reexec's EnvName: a child part of the binary (the
// PDF extractor, the sandbox's forwarder) is not prefaulted. It is
// written twice because this package may not import reexec (see above);
// a test keeps the two equal.
const ReexecEnv = "OCFETCH_REEXEC"
