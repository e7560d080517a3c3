// Package startpages decides which pages of the ocfetch binary are mapped
// around process start: all of them at once for a one-shot command, and,
// for a server, only those it uses once it serves.
//
// A static ocfetch binary touches some 900 pages before main runs: the
// code and read-only data of about 250 packages being initialised, and
// the first megabytes of the Go heap they allocate. On a virtual machine
// a page fault is a trip through the hypervisor (about 20 µs each on the
// project's benchmark VM, under 1 µs on bare metal), which made process
// start, not the fetch, most of `ocfetch get`'s time. On Linux 5.14 and
// later the package's init therefore asks for the binary's read-only
// segments with madvise(MADV_POPULATE_READ) — pages already in the page
// cache, mapped, not read — and for the heap's first chunk (at most
// [HeapBytes]) with madvise(MADV_POPULATE_WRITE): two system calls
// instead of some 700 faults. On an older kernel the calls fail and
// change nothing.
//
// Mapping every page costs more than the faults it spares where a fault
// is cheap (a host whose faults take 1–4 µs: the prefault made `ocfetch
// get` 0.9 ms slower there). So init first times eight faults of its own
// binary, mapped afresh — pages of the page cache, the kind of fault the
// prefault spares — which takes about 20 µs where faults are cheap, and
// prefaults only when the fastest took at least [SlowFault]. (Where a
// hypervisor makes the first touch of fresh memory dear but not a fault
// on cached file pages, the probe reads the host as fast; it has not been
// run on such a host.)
//
// A long-running command ([LongRunning]: mcp, proxy, run) and a child
// part of the binary (the environment variable [ReexecEnv] set) are not
// prefaulted. Such a server calls [Release] once it serves instead: the
// start-up code it will not run again stays mapped otherwise (the kernel
// maps 64 KiB around every fault), and counts in its resident set as
// much as what it serves with. Release drops the page-table entries of
// the binary's read-only segments (those that hold no private copy of a
// page: a relocated segment of a PIE or cgo build, a debugger's
// breakpoint); the pages stay in the page cache, and those the server
// goes on using are mapped again by its next touch.
//
// On other systems init does nothing and Release returns at once.
//
// The package imports nothing but syscall and unsafe, so that it is
// initialised right after syscall, before the dependencies whose
// initialisation it speeds up; TestImportsStayMinimal keeps it so. The
// command imports it for its side effect:
//
//	import _ "github.com/ocfetch/ocfetch/internal/startpages"
package startpages

// HeapBytes bounds the heap prefaulted at start: the first chunk the Go
// runtime maps (4 MiB), about twice what a one-shot command's start
// allocates.
const HeapBytes = 4 << 20

// LongRunning names the ocfetch commands that serve until stopped: a
// command line naming one of them is not prefaulted, and only such a
// command keeps change notification of the policy files (cmd/ocfetch:
// securefile.DisableNotification for every other one).
var LongRunning = []string{"mcp", "proxy", "run"}

// ReexecEnv is internal/reexec's EnvName: a child part of the binary (the
// PDF extractor, the sandbox's forwarder) is not prefaulted. It is
// written twice because this package may not import reexec (see above);
// a test keeps the two equal.
const ReexecEnv = "OCFETCH_REEXEC"
