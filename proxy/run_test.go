//go:build unix

// The run tests signal the test process (SIGTERM); Windows has no such
// signal to send.

package proxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/internal/testws"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
)

func TestEnv(t *testing.T) {
	in := []string{"PATH=/bin", "HTTP_PROXY=http://old", "no_proxy=*", "Ftp_Proxy=x", "HOME=/h", "PROXY=keep", "GOPROXY=off"}
	got := Env(in, "http://127.0.0.1:9")
	want := []string{"PATH=/bin", "HOME=/h", "PROXY=keep", "GOPROXY=off",
		"HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9", "ALL_PROXY=http://127.0.0.1:9",
		"http_proxy=http://127.0.0.1:9", "https_proxy=http://127.0.0.1:9", "all_proxy=http://127.0.0.1:9",
		"NO_PROXY=", "no_proxy="}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Env (-want +got)\n%s", diff)
	}
}

func TestRunExitStatus(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not on PATH")
	}
	t.Setenv("FTP_PROXY", "http://stale")
	tests := []struct {
		name     string
		cmd      []string
		wantCode int
		wantOut  string
		wantErr  bool
	}{
		{"exit code", []string{"sh", "-c", "exit 3"}, 3, "", false},
		{"success", []string{"true"}, 0, "", false},
		{"killed by a signal", []string{"sh", "-c", "kill -KILL $$"}, 128 + 9, "", false},
		{"environment", []string{"sh", "-c", `printf '%s|%s|%s|%s|%s' "$HTTPS_PROXY" "$all_proxy" "${NO_PROXY-unset}" "${no_proxy-unset}" "${FTP_PROXY-unset}"`},
			0, "PROXY|PROXY|||unset", false},
		{"command not found", []string{"ocfetch-no-such-command"}, 127, "", true},
		{"no command", nil, 2, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			code, err := run(context.Background(), &Options{Workspace: testws.Bare(t)}, tc.cmd, nil, &out, io.Discard)
			if code != tc.wantCode || (err != nil) != tc.wantErr {
				t.Errorf("run(%q): got %d, %v; want %d, error %v", tc.cmd, code, err, tc.wantCode, tc.wantErr)
			}
			got := out.String()
			if i := strings.Index(got, "http://127.0.0.1:"); i >= 0 {
				// Replace the proxy's URL, whose port varies.
				got = strings.ReplaceAll(got, got[i:i+strings.IndexByte(got[i:], '|')], "PROXY")
			}
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
	ws := testws.Bare(t)
	w := &world{t: t, ws: ws}
	if err := ws.EnsureDir(); err != nil {
		t.Fatal(err)
	}
	site := httptest.NewServer(http.HandlerFunc(echoHandler))
	defer site.Close()
	port := localPort(t, site)
	w.allowLocal(uint16(port))
	w.rule(rules.Allow, "localhost", port)
	opts := &Options{Workspace: ws, Profile: risk.Permissive, Audit: audit.Open(ws)}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code, err := run(ctx, opts, []string{curlPath, "-sS", "--max-time", "10", "http://localhost:" + strconv.Itoa(port) + "/", "http://uncovered.test/"}, nil, &out, io.Discard)
	if code != 0 || err != nil {
		t.Fatalf("run curl: got %d, %v; want 0, nil\n%s", code, err, out.String())
	}
	want := "hello from localhost:" + strconv.Itoa(port) + "ocfetch: not_approved: "
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("curl output: got %q; want prefix %q", out.String(), want)
	}
	es := w.waitAudit(2)
	var got []string
	for _, e := range es {
		got = append(got, e.Summary+" "+e.Decision+" "+e.Outcome)
	}
	if diff := cmp.Diff([]string{"GET localhost allow ok", "GET uncovered.test refused not_approved"}, got); diff != "" {
		t.Errorf("audit (-want +got)\n%s", diff)
	}
}

// TestRunForwardsSignals: a SIGTERM sent to this process while Run runs a
// command reaches the command, and Run returns the command's status.
func TestRunForwardsSignals(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not on PATH")
	}
	pr, pw := io.Pipe()
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() {
		code, err := run(ctx, &Options{Workspace: testws.Bare(t)},
			[]string{"sh", "-c", `trap 'exit 42' TERM; echo ready; i=0; while [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; exit 1`},
			nil, pw, io.Discard)
		pw.Close()
		done <- result{code, err}
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("child did not start: %q, %v", line, err)
	}
	go io.Copy(io.Discard, pr)
	// run has been catching SIGTERM since before the child started.
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.code != 42 || r.err != nil {
		t.Errorf("run after SIGTERM: got %d, %v; want 42, nil (the child's trap)", r.code, r.err)
	}
}

func TestRunContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	code, err := run(ctx, &Options{Workspace: testws.Bare(t)}, []string{"sleep", "10"}, nil, io.Discard, io.Discard)
	if code != 128+int(syscall.SIGTERM) {
		t.Errorf("cancelled run: got %d, %v; want %d (SIGTERM)", code, err, 128+int(syscall.SIGTERM))
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Errorf("cancelled run returned the raw exit error %v", err)
	}
}
