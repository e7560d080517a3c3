//go:build unix

// The run tests signal the test process (SIGTERM); Windows has no such
// signal to send.

package shellrun

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/proxy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/scope"
)

func TestEnv(t *testing.T) {
	in := []string{"PATH=/bin", "HTTP_PROXY=http://old", "no_proxy=*", "Ftp_Proxy=x", "HOME=/h", "PROXY=keep", "GOPROXY=off"}
	got := Env(in, netip.MustParseAddrPort("127.0.0.1:9"), &proxy.Credentials{User: "u", Password: "p-w"})
	want := []string{"PATH=/bin", "HOME=/h", "PROXY=keep", "GOPROXY=off",
		"HTTP_PROXY=http://u:p-w@127.0.0.1:9", "HTTPS_PROXY=http://u:p-w@127.0.0.1:9", "ALL_PROXY=socks5h://u:p-w@127.0.0.1:9",
		"http_proxy=http://u:p-w@127.0.0.1:9", "https_proxy=http://u:p-w@127.0.0.1:9", "all_proxy=socks5h://u:p-w@127.0.0.1:9",
		"NO_PROXY=", "no_proxy="}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Env (-want +got)\n%s", diff)
	}
	if got := Env(nil, netip.MustParseAddrPort("127.0.0.1:9"), nil); got[0] != "HTTP_PROXY=http://127.0.0.1:9" || got[2] != "ALL_PROXY=socks5h://127.0.0.1:9" {
		t.Errorf("Env without credentials: got %q", got)
	}
}

func TestRunExitStatus(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not on PATH")
	}
	t.Setenv("FTP_PROXY", "http://stale")
	tests := []struct {
		name      string
		cmd       []string
		noSandbox bool
		wantCode  int
		wantOut   string
		wantErr   bool
	}{
		{"exit code", []string{"sh", "-c", "exit 3"}, false, 3, "", false},
		{"exit code without the sandbox", []string{"sh", "-c", "exit 3"}, true, 3, "", false},
		{"success", []string{"true"}, false, 0, "", false},
		{"killed by a signal", []string{"sh", "-c", "kill -KILL $$"}, false, 128 + 9, "", false},
		{"killed by a signal without the sandbox", []string{"sh", "-c", "kill -KILL $$"}, true, 128 + 9, "", false},
		{"environment", []string{"sh", "-c", `printf '%s|%s|%s|%s|%s' "$HTTPS_PROXY" "$all_proxy" "${NO_PROXY-unset}" "${no_proxy-unset}" "${FTP_PROXY-unset}"`},
			false, 0, "http://ocfetch:PASS@127.0.0.1:PORT|socks5h://ocfetch:PASS@127.0.0.1:PORT|||unset", false},
		{"command not found", []string{"ocfetch-no-such-command"}, false, 127, "", true},
		{"command not found without the sandbox", []string{"ocfetch-no-such-command"}, true, 127, "", true},
		{"no command", nil, false, 2, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			code, err := run(context.Background(), bareScope(t), &Options{NoSandbox: tc.noSandbox, Stdout: &out, Stderr: io.Discard}, tc.cmd)
			if code != tc.wantCode || (err != nil) != tc.wantErr {
				t.Errorf("run(%q): got %d, %v; want %d, error %v", tc.cmd, code, err, tc.wantCode, tc.wantErr)
			}
			// The password and the port vary.
			got := regexp.MustCompile(`ocfetch:[A-Za-z0-9_-]{32}@127\.0\.0\.1:[0-9]+`).ReplaceAllString(out.String(), "ocfetch:PASS@127.0.0.1:PORT")
			if got != tc.wantOut {
				t.Errorf("output: got %q; want %q", got, tc.wantOut)
			}
		})
	}
}

// TestRunCurl runs curl under Run: the environment alone sends it through
// the proxy, which admits the loopback site by local mode and a rule.
func TestRunCurl(t *testing.T) {
	curlPath, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not on PATH; the curl tests need it (CI installs it)")
	}
	site, sc, log := allowedSite(t, nil)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	port := strconv.Itoa(site.port)
	code, err := run(ctx, sc, &Options{Audit: log, Stdout: &out, Stderr: io.Discard}, []string{curlPath, "-sS", "--max-time", "10", "http://localhost:" + port + "/", "http://uncovered.test/"})
	if code != 0 || err != nil {
		t.Fatalf("run curl: got %d, %v; want 0, nil\n%s", code, err, out.String())
	}
	want := "hello from localhost:" + port + "ocfetch: not_approved: "
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("curl output: got %q; want prefix %q", out.String(), want)
	}
	es := waitAudit(t, sc.Workspace, 2)
	var got []string
	for _, e := range es {
		got = append(got, e.Summary+" "+string(e.Decision)+" "+e.Outcome)
	}
	if diff := cmp.Diff([]string{"GET localhost allow ok", "GET uncovered.test refused not_approved"}, got); diff != "" {
		t.Errorf("audit (-want +got)\n%s", diff)
	}
	for _, e := range es {
		if e.RunID == "" || e.RunID != es[0].RunID {
			t.Errorf("audit line with run_id %q; want the run's id on every line", e.RunID)
		}
	}
}

// TestRunForwardsSignals: SIGINT or SIGTERM sent to this process while Run
// runs a command (in the sandbox, and without it) reaches the command, and
// Run returns the command's status.
func TestRunForwardsSignals(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not on PATH")
	}
	for _, tc := range []struct {
		sig       syscall.Signal
		noSandbox bool
	}{
		{syscall.SIGTERM, false}, {syscall.SIGINT, false}, {syscall.SIGTERM, true}, {syscall.SIGINT, true},
	} {
		t.Run(fmt.Sprintf("%v no-sandbox=%v", tc.sig, tc.noSandbox), func(t *testing.T) {
			pr, pw := io.Pipe()
			type result struct {
				code int
				err  error
			}
			done := make(chan result, 1)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			go func() {
				code, err := run(ctx, bareScope(t), &Options{NoSandbox: tc.noSandbox, Stdout: pw, Stderr: io.Discard},
					[]string{"sh", "-c", `trap 'exit 42' TERM; trap 'exit 43' INT; echo ready; i=0; while [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; exit 1`})
				pw.Close()
				done <- result{code, err}
			}()
			line, err := bufio.NewReader(pr).ReadString('\n')
			if err != nil || line != "ready\n" {
				t.Fatalf("child did not start: %q, %v", line, err)
			}
			go io.Copy(io.Discard, pr)
			// run has been catching the signals since before the child started.
			if err := syscall.Kill(os.Getpid(), tc.sig); err != nil {
				t.Fatal(err)
			}
			want := 42
			if tc.sig == syscall.SIGINT {
				want = 43
			}
			r := <-done
			if r.code != want || r.err != nil {
				t.Errorf("run after %v: got %d, %v; want %d, nil (the child's trap)", tc.sig, r.code, r.err, want)
			}
		})
	}
}

func TestRunContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	code, err := run(ctx, bareScope(t), &Options{Stdout: io.Discard, Stderr: io.Discard}, []string{"sleep", "10"})
	if code != 128+int(syscall.SIGTERM) {
		t.Errorf("cancelled run: got %d, %v; want %d (SIGTERM)", code, err, 128+int(syscall.SIGTERM))
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Errorf("cancelled run returned the raw exit error %v", err)
	}
}

// TestRunSandboxed runs curl under Run in the sandbox: through HTTP_PROXY
// and through ALL_PROXY (socks5h) an allowed loopback site answers; a
// denied one is refused by the proxy, and Run's stderr names the refusal;
// with the proxy variables ignored (--noproxy '*'), neither the site nor
// any other listener on the host's loopback can be reached, and they see
// nothing.
func TestRunSandboxed(t *testing.T) {
	curlPath, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not on PATH; the curl tests need it (CI installs it)")
	}
	var hits atomic.Int32
	site, sc, log := allowedSite(t, func(rw http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprintf(rw, "hello from %s", r.Host)
	})
	port := strconv.Itoa(site.port)
	script := `c=` + curlPath + `
$c -sS --max-time 5 http://localhost:` + port + `/ ; echo " [http $?]"
$c -sS --max-time 5 -x "$ALL_PROXY" http://localhost:` + port + `/ ; echo " [socks $?]"
$c -sS --max-time 5 -o /dev/null -w '%{http_code}' http://uncovered.test/ ; echo " [denied http $?]"
$c -sS --max-time 5 -x "$ALL_PROXY" http://uncovered.test/ 2>/dev/null; echo " [denied socks $?]"
$c -sS --max-time 5 --noproxy '*' http://127.0.0.1:` + port + `/ 2>/dev/null; echo " [bypass $?]"
$c -sS --max-time 5 -x http://127.0.0.1:` + port + ` http://localhost:` + port + `/ 2>/dev/null; echo " [site as proxy $?]"
`
	var out bytes.Buffer
	var errOut testio.SyncBuffer // Run's lines and the command's stderr, written concurrently
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, err := run(ctx, sc, &Options{Audit: log, Stdout: &out, Stderr: &errOut}, []string{"sh", "-c", script})
	if err != nil {
		if r, ok := refusal.As(err); ok && r.Code == refusal.SandboxUnavailable {
			t.Skipf("sandbox unavailable here: %v", r)
		}
		t.Fatalf("run: %d, %v\n%s", code, err, errOut.String())
	}
	got := out.String()
	for _, want := range []string{
		"hello from localhost:" + port + " [http 0]",
		"hello from localhost:" + port + " [socks 0]",
		"403 [denied http 0]",
		" [denied socks 97]", // curl: the proxy's SOCKS reply was a failure
		" [bypass 7]",        // curl: failed to connect
		" [site as proxy 7]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("the site saw %d requests; want 2 (through HTTP_PROXY and ALL_PROXY only)", n)
	}
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	// Read by the command inside (often a model's): the host, the file,
	// and to ask the user — the command is the user's to run.
	tail := ": not_approved (file " + sc.Workspace.RulesPath() + ") — ask the user to allow it; the user can run: ocfetch rules allow uncovered.test:80"
	want := "ocfetch: refused GET uncovered.test:80" + tail
	wantSocks := "ocfetch: refused CONNECT uncovered.test:80" + tail
	if diff := cmp.Diff([]string{want, wantSocks}, lines); diff != "" {
		t.Errorf("stderr (-want +got)\n%s", diff)
	}
}

// TestRunRefusesWithoutSandbox: under the managed policy's require_sandbox
// NoSandbox is refused by name, naming the policy file, and the command
// never runs; a malformed policy refuses the run; without the
// requirement it runs with one warning line.
func TestRunRefusesWithoutSandbox(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	for _, tc := range []struct {
		name, policy string
		want         refusal.Code
	}{
		{"require_sandbox", `{"require_sandbox": true}`, refusal.ManagedPolicyForbids},
		{"a malformed policy", `{"require_sandbox": "yes"}`, refusal.ManagedPolicyInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := testlayers.New(t)
			l.WriteManaged(t, tc.policy)
			var errOut bytes.Buffer
			code, err := run(context.Background(), &scope.Scope{Workspace: testws.Bare(t), Layers: l.Layers},
				&Options{NoSandbox: true, Stderr: &errOut}, []string{"touch", marker})
			if r, ok := refusal.As(err); !ok || r.Code != tc.want || code != 3 || !strings.Contains(r.Message, l.ManagedPath) {
				t.Errorf("got %d, %v; want 3 and %s naming %s", code, err, tc.want, l.ManagedPath)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the command ran")
			}
			if errOut.Len() != 0 {
				t.Errorf("stderr %q; want nothing (the command never started)", errOut.String())
			}
		})
	}
	var errOut bytes.Buffer
	code, err := run(context.Background(), &scope.Scope{Workspace: testws.Bare(t), Layers: testlayers.New(t).Layers},
		&Options{NoSandbox: true, Stderr: &errOut}, []string{"touch", marker})
	if code != 0 || err != nil {
		t.Fatalf("--no-sandbox: got %d, %v", code, err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("--no-sandbox did not run the command")
	}
	if got := errOut.String(); !strings.HasPrefix(got, "ocfetch: warning: --no-sandbox: ") || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr: got %q; want one warning line", got)
	}
}

// TestRunDenyUnixSockets: DenyUnixSockets goes with the sandbox (the
// command runs, as usual) and is refused with NoSandbox, where it could
// not be kept, before the command runs.
func TestRunDenyUnixSockets(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	code, err := run(context.Background(), &scope.Scope{Workspace: testws.Bare(t), Layers: testlayers.New(t).Layers},
		&Options{NoSandbox: true, DenyUnixSockets: true, Stderr: io.Discard}, []string{"touch", marker})
	if code != 2 || err == nil || !strings.Contains(err.Error(), "NoSandbox") {
		t.Errorf("with NoSandbox: got %d, %v; want 2 and an error naming NoSandbox", code, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
	code, err = run(context.Background(), bareScope(t), &Options{DenyUnixSockets: true, Stdout: io.Discard, Stderr: io.Discard}, []string{"sh", "-c", "exit 4"})
	if r, ok := refusal.As(err); ok && r.Code == refusal.SandboxUnavailable {
		t.Skipf("sandbox unavailable here: %v", r)
	}
	if code != 4 || err != nil {
		t.Errorf("in the sandbox: got %d, %v; want 4, nil", code, err)
	}
}
