package startpages

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/ocfetch/ocfetch/internal/reexec"
)

func TestOneShot(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"get", "https://example.com/"}, true},
		{[]string{"--root", "/w", "explain", "https://example.com/"}, true},
		{[]string{"mcp"}, false},
		{[]string{"--profile", "strict", "proxy", "--listen", "127.0.0.1:0"}, false},
		{[]string{"run", "--", "curl", "https://example.com/"}, false},
		{[]string{"get", "--", "run"}, true}, // after "--" nothing names a command
		{[]string{"get", "mcp"}, false},      // a value equal to a name only costs the prefault
	} {
		if got := oneShot(tc.args); got != tc.want {
			t.Errorf("oneShot(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"ocfetch\x00", []string{}},
		{"ocfetch\x00get\x00https://x/\x00", []string{"get", "https://x/"}},
		{"ocfetch\x00get\x00\x00", []string{"get", ""}},
		{"ocfetch\x00cut", []string{"cut"}}, // no final NUL
	} {
		got := commandLine([]byte(tc.in))
		if !slices.Equal(got, tc.want) {
			t.Errorf("commandLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

const staticMaps = `00400000-00d58000 r-xp 00000000 fe:00 1234                               /usr/local/bin/ocfetch
00d58000-01820000 r--p 00958000 fe:00 1234                               /usr/local/bin/ocfetch
01820000-0195c000 rw-p 01420000 fe:00 1234                               /usr/local/bin/ocfetch
0195c000-039a4000 rw-p 00000000 00:00 0
32a41f000000-32a41f800000 rw-p 00000000 00:00 0
32a41f800000-32a423000000 ---p 00000000 00:00 0
7ff12de00000-7ff12fe00000 rw-p 00000000 00:00 0
7fffde90b000-7fffde92c000 rw-p 00000000 00:00 0                          [stack]
7fffde9f4000-7fffde9f8000 r--p 00000000 00:00 0                          [vvar]
7fffde9f8000-7fffde9fa000 r-xp 00000000 00:00 0                          [vdso]
`

const dynamicMaps = `55d0c0000000-55d0c0958000 r-xp 00000000 fe:00 99                         /opt/ocfetch (deleted)
55d0c0958000-55d0c1420000 r--p 00958000 fe:00 99                         /opt/ocfetch (deleted)
55d0c1420000-55d0c155c000 rw-p 01420000 fe:00 99                         /opt/ocfetch (deleted)
c000000000-c000100000 rw-p 00000000 00:00 0
7f0000000000-7f0000028000 r--p 00000000 fe:00 77                         /usr/lib/x86_64-linux-gnu/libc.so.6
7f0000028000-7f000019d000 r-xp 00028000 fe:00 77                         /usr/lib/x86_64-linux-gnu/libc.so.6
`

func TestRegions(t *testing.T) {
	for _, tc := range []struct {
		name string
		maps string
		heap uintptr
		want []region
	}{
		{"static binary, heap larger than the bound", staticMaps, 0x32a41f000040, []region{
			{0x400000, 0xd58000, false},
			{0xd58000, 0x1820000, false},
			{0x32a41f000000, 0x32a41f000000 + HeapBytes, true},
		}},
		{"dynamic binary, deleted, small heap; libraries left alone", dynamicMaps, 0xc000000010, []region{
			{0x55d0c0000000, 0x55d0c0958000, false},
			{0x55d0c0958000, 0x55d0c1420000, false},
			{0xc000000000, 0xc000100000, true},
		}},
		{"heap 0: the read-only mappings only (Release)", staticMaps, 0, []region{
			{0x400000, 0xd58000, false},
			{0xd58000, 0x1820000, false},
		}},
		{"heap not found", staticMaps, 0x10, []region{
			{0x400000, 0xd58000, false},
			{0xd58000, 0x1820000, false},
		}},
		{"the stack is never the heap", staticMaps, 0x7fffde90b100, []region{
			{0x400000, 0xd58000, false},
			{0xd58000, 0x1820000, false},
		}},
		{"a truncated last line is ignored", staticMaps[:strings.Index(staticMaps, "\n")+40], 0, []region{
			{0x400000, 0xd58000, false},
		}},
		{"unreadable lines are skipped", "garbage\n-\nzz-00 r--p\n00400000-00300000 r--p 0 0 0 /x\n" + staticMaps, 0, []region{
			{0x400000, 0xd58000, false},
			{0xd58000, 0x1820000, false},
		}},
		{"empty", "", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := regions([]byte(tc.maps), tc.heap)
			if !slices.Equal(got, tc.want) {
				t.Errorf("regions = %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func FuzzRegions(f *testing.F) {
	f.Add([]byte(staticMaps), uint64(0x32a41f000040))
	f.Add([]byte(dynamicMaps), uint64(0xc000000010))
	f.Add([]byte("0-1 rw-p 0 0 0\n"), uint64(0))
	f.Fuzz(func(t *testing.T, maps []byte, heap uint64) {
		for _, r := range regions(maps, uintptr(heap)) {
			if r.end <= r.start {
				t.Fatalf("empty or inverted region %+v", r)
			}
			if r.write && r.end-r.start > HeapBytes {
				t.Fatalf("heap region %+v larger than HeapBytes", r)
			}
			if r.write && (heap == 0 || uintptr(heap) < r.start) {
				t.Fatalf("heap region %+v starts after the heap address %x", r, heap)
			}
		}
	})
}

// TestPopulateMapsPages populates fresh mappings and counts their pages
// the process has mapped (mincore for anonymous memory, whose mapping the
// kernel may merge with its neighbours; /proc/self/smaps' Rss for a file,
// whose pages mincore counts as soon as they are in the page cache):
// nothing before, every page after.
func TestPopulateMapsPages(t *testing.T) {
	const size = 16 << 12
	file := filepath.Join(t.TempDir(), "pages")
	if err := os.WriteFile(file, bytes.Repeat([]byte{'x'}, size), 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(file, syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	for _, tc := range []struct {
		name     string
		write    bool
		mmap     func() ([]byte, error)
		resident func(t *testing.T, start uintptr) int
	}{
		{"anonymous, write", true, func() ([]byte, error) {
			return syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		}, func(t *testing.T, start uintptr) int { return residentPages(t, start, size) * 4 }},
		{"file, read", false, func() ([]byte, error) {
			return syscall.Mmap(fd, 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE)
		}, residentKB},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem, err := tc.mmap()
			if err != nil {
				t.Fatal(err)
			}
			defer syscall.Munmap(mem)
			start := uintptr(unsafe.Pointer(&mem[0]))
			if rss := tc.resident(t, start); rss != 0 {
				t.Fatalf("resident before populating: %d kB", rss)
			}
			err = populate(region{start: start, end: start + size, write: tc.write})
			if err == syscall.EINVAL {
				t.Skip("this kernel has no MADV_POPULATE_READ/WRITE (Linux 5.14)")
			}
			if err != nil {
				t.Fatal(err)
			}
			if rss := tc.resident(t, start); rss != size>>10 {
				t.Fatalf("resident after populating: %d kB, want %d", rss, size>>10)
			}
		})
	}
}

// residentPages counts the pages of [start, start+size) mincore reports
// resident.
func residentPages(t *testing.T, start uintptr, size int) int {
	t.Helper()
	vec := make([]byte, size>>12)
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, start, uintptr(size), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// residentKB is the Rss of the mapping that starts at start, from
// /proc/self/smaps.
func residentKB(t *testing.T, start uintptr) int {
	t.Helper()
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, line := range strings.Split(string(smaps), "\n") {
		if m, ok := parseMapping([]byte(line)); ok { // a mapping's first line
			in = m.start == start
			continue
		}
		if in && strings.HasPrefix(line, "Rss:") {
			kb, err := strconv.Atoi(strings.Fields(line)[1])
			if err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Fatalf("no mapping starts at %x", start)
	return 0
}

const dynamicSmaps = `55d0c0000000-55d0c0958000 r-xp 00000000 fe:00 99                         /opt/ocfetch
Size:               9568 kB
Rss:                4096 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me
55d0c0958000-55d0c1400000 r--p 00958000 fe:00 99                         /opt/ocfetch
Size:              10912 kB
Anonymous:             0 kB
55d0c1400000-55d0c1420000 r--p 01400000 fe:00 99                         /opt/ocfetch
Size:                128 kB
Anonymous:           128 kB
55d0c1420000-55d0c155c000 rw-p 01420000 fe:00 99                         /opt/ocfetch
Anonymous:             8 kB
55d0c155c000-55d0c1560000 r--p 0155c000 fe:00 99                         /opt/ocfetch
Anonymous:            x kB
55d0c1560000-55d0c1570000 r--p 01560000 fe:00 99                         /opt/ocfetch
Rss:                  64 kB
7f0000000000-7f0000028000 r--p 00000000 fe:00 77                         /usr/lib/x86_64-linux-gnu/libc.so.6
Anonymous:             0 kB
`

func TestReleasable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		smaps string
		want  []region
	}{
		{"only read-only mappings of the binary without a private page", dynamicSmaps, []region{
			{0x55d0c0000000, 0x55d0c0958000, false},
			{0x55d0c0958000, 0x55d0c1400000, false},
		}},
		{"a cut-off mapping is not released", dynamicSmaps[:strings.Index(dynamicSmaps, "Anonymous")+12], nil},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := releasable([]byte(tc.smaps)); !slices.Equal(got, tc.want) {
				t.Errorf("releasable = %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestKilobytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"             0 kB", 0, true},
		{" 128 kB", 128, true},
		{"128 kB", 128, true},
		{"   kB", 0, false},
		{" 12x kB", 0, false},
		{" 12 KB", 0, false},
		{" 12 kB trailing", 0, false},
		{" 9999999999999 kB", 0, false},
	} {
		got, ok := kilobytes([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("kilobytes(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzReleasable(f *testing.F) {
	f.Add([]byte(dynamicSmaps))
	f.Add([]byte(staticMaps))
	f.Fuzz(func(t *testing.T, smaps []byte) {
		readOnly := regions(smaps, 0)
		for _, r := range releasable(smaps) {
			if !slices.Contains(readOnly, r) {
				t.Fatalf("released %+v, not a read-only mapping of the executable %+v", r, readOnly)
			}
		}
	})
}

// TestReleaseUnmapsTheBinary maps all of the test binary's read-only
// segments, as init does where it prefaults (whether it did here depends
// on the host's faults); after Release, what is resident is what ran
// since (reading smaps, mostly), far below.
func TestReleaseUnmapsTheBinary(t *testing.T) {
	exe := releasable(readFileInto(make([]byte, smapsBytes), "/proc/self/smaps"))
	if len(exe) == 0 {
		t.Fatal("no releasable mapping of the executable in /proc/self/smaps")
	}
	size := 0
	for _, r := range exe {
		size += int(r.end-r.start) >> 10
		if err := populate(r); err == syscall.EINVAL {
			t.Skip("this kernel has no MADV_POPULATE_READ (Linux 5.14)")
		} else if err != nil {
			t.Fatal(err)
		}
	}
	resident := func() (kb int) {
		for _, r := range exe {
			kb += residentKB(t, r.start)
		}
		return kb
	}
	before := resident()
	Release()
	after := resident()
	t.Logf("the binary's read-only mappings: %d kB, resident %d kB before Release, %d kB after", size, before, after)
	if before < size*9/10 {
		t.Fatalf("only %d of %d kB resident before Release, after populating the read-only segments", before, size)
	}
	if after > size*3/4 {
		t.Fatalf("Release left %d of %d kB resident", after, size)
	}
}

// TestImportsStayMinimal: the package is initialised early only while it
// imports nothing that imports much.
func TestImportsStayMinimal(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p != "syscall" && p != "unsafe" {
				t.Errorf("%s imports %s; prefault may import only syscall and unsafe", name, p)
			}
		}
	}
}

func TestReexecEnvIsReexecs(t *testing.T) {
	if ReexecEnv != reexec.EnvName {
		t.Fatalf("ReexecEnv = %q, internal/reexec's EnvName = %q", ReexecEnv, reexec.EnvName)
	}
}

// TestFaultCost times faults of a running binary (this test's) and leaves
// no mapping behind; a file it cannot probe reads as unknown.
func TestFaultCost(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The mappings of the executable: the probe's own names it too.
	mappings := func() int {
		maps, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, line := range strings.Split(string(maps), "\n") {
			if m, ok := parseMapping([]byte(line)); ok && string(m.path) == exe {
				n++
			}
		}
		return n
	}
	before := mappings()
	cost := faultCost(exe)
	if cost <= 0 || cost > int64(time.Second) {
		t.Fatalf("faultCost(%s) = %d ns, want a time between 0 and 1 s", exe, cost)
	}
	if after := mappings(); before == 0 || after != before {
		t.Errorf("%d mappings of %s before the probe, %d after", before, exe, after)
	}
	t.Logf("one fault of %s: %d ns (prefault from %d)", exe, cost, SlowFault)

	short := filepath.Join(t.TempDir(), "short")
	if err := os.WriteFile(short, make([]byte, faultWindow-1), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{short, filepath.Join(t.TempDir(), "missing"), t.TempDir()} {
		if got := faultCost(name); got != -1 {
			t.Errorf("faultCost(%s) = %d, want -1 (unknown)", name, got)
		}
	}
}

func TestWorthPrefaulting(t *testing.T) {
	for _, tc := range []struct {
		cost int64
		want bool
	}{
		{-1, false}, // unknown: as a fast host
		{0, false},
		{1200, false}, // a bare-metal or EPT host
		{SlowFault - 1, false},
		{SlowFault, true},
		{20000, true}, // a fault through the hypervisor
	} {
		if got := worthPrefaulting(tc.cost); got != tc.want {
			t.Errorf("worthPrefaulting(%d) = %v, want %v", tc.cost, got, tc.want)
		}
	}
}
