//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ocfetch/ocfetch/internal/reexec"
	"github.com/ocfetch/ocfetch/internal/testsupport/testchild"
	"github.com/ocfetch/ocfetch/refusal"
)

func TestMain(m *testing.M) {
	reexec.Init()
	testchild.QuickRaceExit()
	if probe := os.Getenv("OCFETCH_SANDBOX_PROBE"); probe != "" {
		os.Exit(runProbe(probe))
	}
	os.Exit(m.Run())
}

// runProbe is what the test binary does when a test runs it as the
// confined command: one network action, exit 0 if it succeeded.
//
//	tcp ADDR      connect to ADDR and read one line
//	udp-dns ADDR  send a DNS query to ADDR over UDP and wait for an answer
//
// and the checks of confineProbe.
func runProbe(probe string) int {
	verb, addr, _ := strings.Cut(probe, " ")
	switch verb {
	case "tcp":
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			fmt.Println("dial:", err)
			return 1
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(2 * time.Second))
		b, err := io.ReadAll(io.LimitReader(c, 64))
		fmt.Printf("read %q %v\n", b, err)
		if len(b) == 0 {
			return 1
		}
		return 0
	case "udp-dns":
		r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "udp", addr)
		}}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err := r.LookupHost(ctx, "example.com")
		fmt.Println("lookup:", err)
		if err != nil {
			return 1
		}
		return 0
	}
	return confineProbe(verb, addr)
}

// probe runs the test binary confined as the command, with the probe in
// its environment, and returns its exit status and output. The proxy side
// is serve, given the listener Start returned.
func probe(t *testing.T, action string, serve func(net.Listener)) (int, string) {
	t.Helper()
	return probeWith(t, action, &Options{Workspace: testWorkspace(t)}, serve)
}

// probeWith is probe with the sandbox's options. The command is the test
// binary by its magic link, which the namespace's first process (this
// binary too) can execute whatever uid it runs as.
func probeWith(t *testing.T, action string, opts *Options, serve func(net.Listener)) (int, string) {
	t.Helper()
	var seen netip.AddrPort
	cmd, err := Command(context.Background(), []string{"/proc/self/exe"}, func(p netip.AddrPort) []string {
		seen = p
		return append(os.Environ(), "OCFETCH_SANDBOX_PROBE="+strings.ReplaceAll(action, "PROXY", p.String()))
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if seen != cmd.Proxy || !seen.Addr().IsLoopback() {
		t.Fatalf("env got proxy %v; Cmd.Proxy is %v", seen, cmd.Proxy)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	ln, err := cmd.Start()
	if err != nil {
		if r, ok := refusal.As(err); ok && r.Code == refusal.SandboxUnavailable {
			t.Skipf("sandbox unavailable here: %v (hint: %s)", r, r.Hint)
		}
		t.Fatal(err)
	}
	defer ln.Close()
	if got := ln.Addr().String(); got != cmd.Proxy.String() {
		t.Errorf("listener address: got %s; want %s", got, cmd.Proxy)
	}
	if serve != nil {
		go serve(ln)
	}
	err = cmd.Wait()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String()
}

// hostListener is a TCP listener on the host's 127.0.0.1 that counts what
// reaches it.
func hostListener(t *testing.T) (string, *atomic.Int32) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			io.WriteString(c, "host\n")
			c.Close()
		}
	}()
	return ln.Addr().String(), &n
}

// TestOnlyTheProxyIsReachable: inside the sandbox a connection to the
// proxy's address reaches the listener Start returned, while a connection
// to a listener on the host's loopback and a DNS query to a resolver on the
// host's loopback fail, and neither host listener sees anything.
func TestOnlyTheProxyIsReachable(t *testing.T) {
	addr, hits := hostListener(t)
	code, out := probe(t, "tcp PROXY", func(ln net.Listener) {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		io.WriteString(c, "proxy\n")
		c.Close()
	})
	if code != 0 || !strings.Contains(out, `"proxy\n"`) {
		t.Errorf("connecting to the proxy's address: exit %d, %q; want it to reach the proxy's listener", code, out)
	}
	code, out = probe(t, "tcp "+addr, nil)
	if code == 0 || !strings.Contains(out, "connection refused") {
		t.Errorf("connecting to the host's %s: exit %d, %q; want connection refused", addr, code, out)
	}

	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	var udpHits atomic.Int32
	go func() {
		b := make([]byte, 512)
		for {
			if _, _, err := udp.ReadFrom(b); err != nil {
				return
			}
			udpHits.Add(1)
		}
	}()
	code, out = probe(t, "udp-dns "+udp.LocalAddr().String(), nil)
	if code == 0 {
		t.Errorf("DNS over UDP to the host's %s: exit 0, %q; want a failure", udp.LocalAddr(), out)
	}
	if hits.Load() != 0 || udpHits.Load() != 0 {
		t.Errorf("host listeners saw %d TCP connections and %d UDP datagrams; want none", hits.Load(), udpHits.Load())
	}
}

// TestExitStatusAndSignals: the command's exit status and the signal that
// ended it come back as they would without the sandbox, and standard
// streams are the command's own.
func TestExitStatusAndSignals(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not on PATH")
	}
	for _, tc := range []struct {
		name   string
		script string
		stdin  string
		code   int
		signal syscall.Signal
		out    string
	}{
		{"exit code", "exit 7", "", 7, 0, ""},
		{"stdin to stdout", "cat; echo err >&2", "hello\n", 0, 0, "hello\nerr\n"},
		{"killed by SIGTERM", "kill -TERM $$", "", -1, syscall.SIGTERM, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, err := Command(context.Background(), []string{"sh", "-c", tc.script}, func(netip.AddrPort) []string { return os.Environ() }, &Options{Workspace: testWorkspace(t)})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(tc.stdin), &out, &out
			ln, err := cmd.Start()
			if err != nil {
				if r, ok := refusal.As(err); ok && r.Code == refusal.SandboxUnavailable {
					t.Skipf("sandbox unavailable here: %v", r)
				}
				t.Fatal(err)
			}
			defer ln.Close()
			cmd.Wait()
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if tc.signal != 0 {
				if !ws.Signaled() || ws.Signal() != tc.signal {
					t.Errorf("got %v; want killed by %v", ws, tc.signal)
				}
			} else if ws.ExitStatus() != tc.code {
				t.Errorf("exit status: got %d; want %d", ws.ExitStatus(), tc.code)
			}
			if out.String() != tc.out {
				t.Errorf("output: got %q; want %q", out.String(), tc.out)
			}
		})
	}
}

func TestCommandNotFound(t *testing.T) {
	_, err := Command(context.Background(), []string{"ocfetch-no-such-command"}, func(netip.AddrPort) []string { return nil }, nil)
	if !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("got %v; want exec.ErrNotFound", err)
	}
}

// TestUnprivileged runs this package's sandbox tests again as the user
// nobody (uid 65534), for whom the sandbox needs a user namespace: the
// path an ordinary user takes. It skips, naming the reason, where this
// process is not root (it cannot change its uid) or the kernel refuses
// unprivileged user namespaces (the inner tests then skip themselves with
// the sandbox_unavailable diagnosis, which this test reports).
func TestUnprivileged(t *testing.T) {
	if os.Getenv("OCFETCH_SANDBOX_INNER") != "" {
		t.Skip("already the unprivileged run")
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: the other tests already ran the unprivileged path")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A copy nobody may execute, in a directory nobody may enter.
	dir, err := os.MkdirTemp("", "ocfetch-sandbox-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := dir + "/sandbox.test"
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.v", "-test.count=1", "-test.run=^(TestOnlyTheProxyIsReachable|TestExitStatusAndSignals|TestIdentity|TestHostname|TestInheritedDescriptors|TestSocketFamilies|TestPolicyFilesReadOnly|TestWriteAllowList|TestWriteAnywhere|TestDenyRead|TestProxyProcessOutOfReach)$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OCFETCH_SANDBOX_INNER=1", "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the tests as uid 65534 failed: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "--- SKIP") {
		t.Skipf("the kernel refuses the unprivileged sandbox here:\n%s", out)
	}
	for _, name := range []string{"TestOnlyTheProxyIsReachable", "TestIdentity", "TestHostname", "TestInheritedDescriptors", "TestSocketFamilies", "TestPolicyFilesReadOnly", "TestWriteAllowList", "TestProxyProcessOutOfReach"} {
		if !strings.Contains(string(out), "--- PASS: "+name) {
			t.Errorf("%s as uid 65534 did not pass:\n%s", name, out)
		}
	}
}

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (ptm, pts *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open the pty's slave: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// TestTerminal: a command given a terminal as its standard streams sees
// that terminal inside the sandbox, as it would outside.
func TestTerminal(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not on PATH")
	}
	ptm, pts := openPTY(t)
	cmd, err := Command(context.Background(), []string{"sh", "-c", "test -t 0 && test -t 1 && test -t 2 && echo on-a-terminal"}, func(netip.AddrPort) []string { return os.Environ() }, &Options{Workspace: testWorkspace(t)})
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
	ln, err := cmd.Start()
	if err != nil {
		if r, ok := refusal.As(err); ok && r.Code == refusal.SandboxUnavailable {
			t.Skipf("sandbox unavailable here: %v", r)
		}
		t.Fatal(err)
	}
	defer ln.Close()
	werr := cmd.Wait()
	ptm.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, 64)
	n, _ := ptm.Read(b)
	if werr != nil || !strings.Contains(string(b[:n]), "on-a-terminal") {
		t.Errorf("got %v, %q; want the command to find its streams on the terminal", werr, b[:n])
	}
}

// outputLines starts cmd in the sandbox (skipping the test where the
// sandbox is unavailable), waits for it, and returns the lines it wrote to
// standard output and error.
func outputLines(t *testing.T, cmd *Cmd) []string {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	ln, err := cmd.Start()
	if err != nil {
		if r, ok := refusal.As(err); ok && r.Code == refusal.SandboxUnavailable {
			t.Skipf("sandbox unavailable here: %v", r)
		}
		t.Fatal(err)
	}
	defer ln.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	return strings.Split(strings.TrimSpace(out.String()), "\n")
}
