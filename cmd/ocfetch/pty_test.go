//go:build linux || darwin || freebsd

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ocfetch/ocfetch/internal/testsupport/termscreen"
)

// onTerminal runs the ocfetch binary (the test binary under that name,
// see TestMain) with stdout and stderr on a new pseudo-terminal of cols
// columns and stdin from stdin (nil: the terminal too), and returns all it
// wrote to the terminal and its exit code. It gives up after 30 seconds.
func onTerminal(t *testing.T, cols uint16, stdin *os.File, args ...string) (string, int) {
	t.Helper()
	exe, err := exec.LookPath("ocfetch")
	if err != nil {
		t.Skip("the ocfetch test command is not on PATH:", err)
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: cols}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = testLayersEnv(t)
	cmd.Stdout, cmd.Stderr, cmd.Stdin = tty, tty, tty
	if stdin != nil {
		cmd.Stdin = stdin
	}
	if err := cmd.Start(); err != nil {
		tty.Close()
		t.Fatal(err)
	}
	tty.Close() // the child holds it now; EOF (EIO) on ptmx when it exits
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&out, ptmx); close(copied) }()
	return waitTerminal(t, cmd, copied, &out)
}

// TestTerminalStdinDevNull: `ocfetch get URL </dev/null` typed at a
// terminal finds nobody to ask — /dev/null is a character device but no
// terminal — and refuses with "nobody could be asked", without showing the
// prompt or reading end of file as a denial (issue 15).
func TestTerminalStdinDevNull(t *testing.T) {
	s := newSite(t)
	root := newRoot(t)
	localRoot2(t, root, s.port, false) // local mode on, no rule: the call needs an approval
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	out, code := onTerminal(t, 80, devnull, "--root", root, "--profile", "permissive", "get", s.url("/"))
	if code != exitRefused || !strings.Contains(out, "nobody could be asked") {
		t.Errorf("exit %d, terminal shows:\n%s\nwant exit %d and \"nobody could be asked\"", code, out, exitRefused)
	}
	for _, bad := range []string{"[o]nce", "denied by the user"} {
		if strings.Contains(out, bad) {
			t.Errorf("terminal shows %q:\n%s", bad, out)
		}
	}
	if len(s.requests()) != 0 {
		t.Errorf("the site got %d requests; want none", len(s.requests()))
	}

	// The same call with the terminal as stdin is asked, and "d" denies it.
	out, code = onTerminalTyping(t, "d\n", "--root", root, "--profile", "permissive", "get", s.url("/"))
	if code != exitRefused || !strings.Contains(out, "[o]nce") || !strings.Contains(out, "denied by the user") {
		t.Errorf("with a terminal as stdin: exit %d, terminal shows:\n%s\nwant the prompt, then \"denied by the user\"", code, out)
	}
}

// onTerminalTyping is onTerminal with stdin the terminal too, on which
// typed is typed once the prompt shows.
func onTerminalTyping(t *testing.T, typed string, args ...string) (string, int) {
	t.Helper()
	exe, err := exec.LookPath("ocfetch")
	if err != nil {
		t.Skip("the ocfetch test command is not on PATH:", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = testLayersEnv(t)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	defer ptmx.Close()
	var out bytes.Buffer
	copied := make(chan struct{})
	prompted := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		once := false
		for {
			n, err := ptmx.Read(buf)
			out.Write(buf[:n])
			if !once && bytes.Contains(out.Bytes(), []byte("[d]eny?")) {
				once = true
				close(prompted)
			}
			if err != nil {
				break
			}
		}
		close(copied)
	}()
	select {
	case <-prompted:
		io.WriteString(ptmx, typed)
	case <-time.After(20 * time.Second):
		t.Fatal("no prompt shown")
	}
	return waitTerminal(t, cmd, copied, &out)
}

// trickle serves 3 MiB in 64 KiB chunks 15 ms apart (about 0.75 s), so the
// progress bar is redrawn several times.
func trickle(w http.ResponseWriter, r *http.Request) {
	const size, chunk = 3 << 20, 64 << 10
	w.Header().Set("Content-Type", "application/octet-stream")
	if r.URL.Query().Get("chunked") == "" {
		w.Header().Set("Content-Length", strconv.Itoa(size))
	}
	buf := bytes.Repeat([]byte{'x'}, chunk)
	for sent := 0; sent < size; sent += chunk {
		if _, err := w.Write(buf); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(15 * time.Millisecond):
		}
	}
}

// TestTerminalProgressBar downloads with `get -o` on a real terminal of 40
// and 120 columns, feeds everything the terminal received to
// [termscreen.Screen], and checks the user sees the bar's last state and
// nothing else on its line: no wrapped line, no characters left behind.
func TestTerminalProgressBar(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(trickle))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	root := newRoot(t)
	localRoot2(t, root, port, true)
	for _, cols := range []uint16{40, 120} {
		for _, query := range []string{"", "?chunked=1"} {
			t.Run(fmt.Sprintf("%d columns%s", cols, query), func(t *testing.T) {
				file := filepath.Join(t.TempDir(), "body.bin")
				out, code := onTerminal(t, cols, nil, "--root", root, "--profile", "permissive",
					"get", "-o", file, fmt.Sprintf("http://127.0.0.1:%d/%s", port, query))
				if code != exitOK {
					t.Fatalf("exit %d; terminal shows:\n%s", code, out)
				}
				if fi, err := os.Stat(file); err != nil || fi.Size() != 3<<20 {
					t.Fatalf("%s: %v, %v; want 3 MiB", file, fi, err)
				}
				if n := strings.Count(out, "\r"); n < 4 {
					t.Errorf("the bar was drawn %d times; want several redraws", n)
				}
				// The bar's part of the output: up to the newline that ends it
				// (what follows is the response summary, whose long file name
				// may wrap as any text does).
				barOut, _, _ := strings.Cut(out, "\n")
				scr := termscreen.New(int(cols))
				scr.Feed(t, []byte(barOut+"\n"))
				if scr.Wrapped {
					t.Errorf("a line wrapped on the %d-column terminal:\n%q", cols, out)
				}
				// The screen holds exactly one line, a well-formed final bar.
				want := regexp.MustCompile(`^\[=+\] 100%     3\.0 MiB / 3\.0 MiB(  +\S+ \S+/s  +in 0:0\d)?$`)
				if query != "" {
					want = regexp.MustCompile(`^   3\.0 MiB  +\S+ \S+/s  +in 0:0\d$`)
				}
				lines := scr.Lines()
				if len(lines) != 1 || !want.MatchString(lines[0]) {
					t.Fatalf("the bar's line on the screen = %q; want one line matching %s\nraw: %q", lines, want, barOut)
				}
				bar := lines[0]
				if cols >= 120 && !strings.Contains(bar, "/s") {
					t.Errorf("final bar line %q on %d columns; want the rate and time in it", bar, cols)
				}
				if len(bar) > int(cols)-1 {
					t.Errorf("final bar line is %d characters on a %d-column terminal", len(bar), cols)
				}
			})
		}
	}
}

// testLayersEnv is the environment of an ocfetch child process whose
// os.UserConfigDir()/ocfetch is the test's trust store (testLayers), where
// newRoot trusted the workspace.
func testLayersEnv(t *testing.T) []string {
	cfg := filepath.Dir(testLayers(t).configDir)
	return append(os.Environ(), "XDG_CONFIG_HOME="+cfg, "HOME="+filepath.Dir(cfg))
}

// waitTerminal waits for cmd and for the copy of its terminal's output
// (copied is closed when it ends), and returns that output and cmd's exit
// code.
func waitTerminal(t *testing.T, cmd *exec.Cmd, copied <-chan struct{}, out *bytes.Buffer) (string, int) {
	t.Helper()
	err := cmd.Wait()
	select {
	case <-copied:
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal's output did not end")
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), code
}
