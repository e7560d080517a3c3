//go:build linux || darwin || freebsd

package main

import (
	"context"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunAsksOnTerminal: `ocfetch run -- curl URL` on a terminal, with no
// rule for the target, asks on that terminal, naming the command; "once"
// lets that request through, "deny" refuses it with the refusal line, and
// without a controlling terminal nothing is asked and the target is
// refused as before.
func TestRunAsksOnTerminal(t *testing.T) {
	curlPath, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not on PATH")
	}
	s := newSite(t)
	root := newRoot(t)
	if err := testws.GiveToSandboxUser(root); err != nil {
		t.Fatal(err)
	}
	localRoot2(t, root, s.port, false) // local mode on, no rule
	target := s.url("/")
	args := []string{"--root", root, "--profile", "permissive", "run", "--", curlPath, "-sS", "--noproxy", "", "--max-time", "20", target}

	out, code := onTerminalTyping(t, "o\n", args...)
	if code != 0 || !strings.Contains(out, "curl (ocfetch run) wants HTTP 127.0.0.1:") || !strings.Contains(out, "for this [s]ession") || !strings.Contains(out, "Harbour") {
		t.Fatalf("once: exit %d, terminal shows:\n%s\nwant the question naming curl, then the page", code, out)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("once: the site got %d requests; want 1", n)
	}

	out, code = onTerminalTyping(t, "d\n", args...)
	if !strings.Contains(out, "[d]eny?") || !strings.Contains(out, "ocfetch: refused GET 127.0.0.1:") || !strings.Contains(out, "not_approved") || strings.Contains(out, "Harbour") {
		t.Errorf("deny: exit %d, terminal shows:\n%s\nwant the question, then the refusal line", code, out)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("deny: the site got %d requests in all; want still 1", n)
	}
	lines := auditLinesOf(t, root)
	if got := strings.Join(lines, "\n"); !strings.Contains(got, `"decided_by":"once"`) || !strings.Contains(got, `"decided_by":"denied"`) {
		t.Errorf("audit lines:\n%s\nwant one decided by once, one denied", got)
	}

	// No controlling terminal (a new session, stdin /dev/null): nothing
	// is asked, and the target is refused at once.
	exe, err := exec.LookPath("ocfetch")
	if err != nil {
		t.Skip("the ocfetch test command is not on PATH:", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = testLayersEnv(t)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	cmd.Stdin = devnull
	b, _ := cmd.CombinedOutput()
	if got := string(b); strings.Contains(got, "[d]eny?") || !strings.Contains(got, "not_approved") {
		t.Errorf("without a terminal: output\n%s\nwant no question, a not_approved refusal", got)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("without a terminal: the site got %d requests in all; want still 1", n)
	}
}

// auditLinesOf returns the lines of root's audit log.
func auditLinesOf(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile(wsOf(t, root).AuditPath())
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}
