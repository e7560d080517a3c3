//go:build unix

package shellrun

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/rules"
)

// TestRunAsks: with an Approver, a target no rule covers is put to it,
// naming the command; "once" lets that request through, "deny" refuses
// it with the refusal line; the audit lines say which.
func TestRunAsks(t *testing.T) {
	curlPath, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not on PATH; the curl tests need it (CI installs it)")
	}
	site, sc, log := allowedSite(t, nil)
	if _, err := rules.Remove(context.Background(), sc.Workspace, "localhost", uint16(site.port)); err != nil {
		t.Fatal(err)
	}
	url := "http://localhost:" + strconv.Itoa(site.port) + "/"
	for i, tc := range []struct {
		answer  broker.Answer
		wantOut string
		wantErr string
		by      audit.DecidedBy
	}{
		{broker.Once, "hello from localhost:" + strconv.Itoa(site.port), "", audit.ByOnce},
		{broker.Deny, "", "ocfetch: refused GET localhost:" + strconv.Itoa(site.port) + ": not_approved", audit.ByDenied},
	} {
		t.Run(tc.answer.String(), func(t *testing.T) {
			var mu sync.Mutex
			var asked []broker.ApprovalRequest
			approver := broker.ApproverFunc(func(_ context.Context, req broker.ApprovalRequest) (broker.Answer, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, req)
				return tc.answer, nil
			})
			var out, errOut bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			code, err := run(ctx, sc, &Options{Audit: log, Approver: approver, Warn: io.Discard, NoSandbox: true, Stdout: &out, Stderr: &errOut},
				[]string{curlPath, "-sS", "-o", "/dev/stdout", "--max-time", "10", url})
			if err != nil || code != 0 {
				t.Fatalf("run: %d, %v\n%s", code, err, errOut.String())
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 1 || asked[0].Tool != "curl (ocfetch run)" || asked[0].Requirement.Target.Port() != uint16(site.port) {
				t.Errorf("asked %+v; want one question naming curl (ocfetch run) and the site's port", asked)
			}
			if !strings.Contains(out.String(), tc.wantOut) || (tc.wantOut == "" && strings.Contains(out.String(), "hello")) {
				t.Errorf("curl output %q; want %q", out.String(), tc.wantOut)
			}
			if !strings.Contains(errOut.String(), tc.wantErr) {
				t.Errorf("stderr %q; want %q", errOut.String(), tc.wantErr)
			}
			es := waitAudit(t, sc.Workspace, i+1)
			if last := es[len(es)-1]; last.DecidedBy != tc.by {
				t.Errorf("last audit line decided by %q; want %q", last.DecidedBy, tc.by)
			}
		})
	}
}
