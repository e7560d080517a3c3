package proxy

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
)

// curl runs curl with args and returns its stdout and exit code. The
// simulated public internet of the Go tests is not reachable by curl (it
// resolves names itself), so curl covers local mode and the refusals the
// proxy answers before any dial.
func curl(t *testing.T, args ...string) (string, int) {
	t.Helper()
	path, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not on PATH; the curl tests need it (CI installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, path, append([]string{"-sS", "--max-time", "10", "--noproxy", ""}, args...)...)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	return out.String() + errOut.String(), code
}

func TestCurl(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Permissive})
	site := httptest.NewServer(http.HandlerFunc(echoHandler))
	defer site.Close()
	tlsSite := httptest.NewTLSServer(http.HandlerFunc(echoHandler))
	defer tlsSite.Close()
	sitePort, tlsPort := localPort(t, site), localPort(t, tlsSite)
	closedPort := int(testnet.RefusedPort(t)) // refused on 127.0.0.1 and ::1

	w.allowLocal(uint16(sitePort), uint16(tlsPort), uint16(closedPort))
	w.rule(rules.Allow, "localhost", sitePort)
	w.rule(rules.Allow, "localhost", tlsPort)
	w.rule(rules.Allow, "localhost", closedPort)
	w.rule(rules.Allow, "127.0.0.2", sitePort)
	proxyURL := "http://" + w.addr
	site1 := "http://localhost:" + strconv.Itoa(sitePort) + "/"

	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string // substrings of curl's output (with -D - the head)
	}{
		{"http through local mode", []string{"-D", "-", "-x", proxyURL, site1},
			0, []string{"HTTP/1.1 200 OK", "hello from localhost:" + strconv.Itoa(sitePort)}},
		{"http tunnelled with -p", []string{"-p", "-x", proxyURL, site1},
			0, []string{"hello from localhost:" + strconv.Itoa(sitePort)}},
		{"https through CONNECT in local mode", []string{"-k", "-x", proxyURL, "https://localhost:" + strconv.Itoa(tlsPort) + "/"},
			0, []string{"hello from localhost:" + strconv.Itoa(tlsPort)}},
		{"127.0.0.2 is refused", []string{"-D", "-", "-x", proxyURL, "http://127.0.0.2:" + strconv.Itoa(sitePort) + "/"},
			0, []string{"HTTP/1.1 403 Forbidden", ReasonHeader + ": address_not_public", "ocfetch: address_not_public: "}},
		{"an uncovered host is refused", []string{"-D", "-", "-x", proxyURL, uncoveredURL},
			0, []string{"HTTP/1.1 403 Forbidden", ReasonHeader + ": not_approved", "hint: allow it with: ocfetch rules allow uncovered.test:80"}},
		{"a loopback port not in the allowlist", []string{"-D", "-", "-x", proxyURL, "http://localhost:1/"},
			0, []string{"HTTP/1.1 403 Forbidden", ReasonHeader + ": local_port_not_allowed"}},
		{"CONNECT refused", []string{"-x", proxyURL, "https://uncovered.test/"},
			56, []string{"403"}},
		{"nothing listening on an admitted port", []string{"-D", "-", "-x", proxyURL, "http://localhost:" + strconv.Itoa(closedPort) + "/"},
			0, []string{"HTTP/1.1 502 Bad Gateway", ReasonHeader + ": connection_failed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, code := curl(t, tc.args...)
			if code != tc.wantCode {
				t.Errorf("curl exit code: got %d; want %d\n%s", code, tc.wantCode, out)
			}
			for _, s := range tc.want {
				if !strings.Contains(out, s) {
					t.Errorf("curl output lacks %q:\n%s", s, out)
				}
			}
		})
	}
	for _, a := range w.dials.List() {
		if strings.HasPrefix(a, "127.0.0.2") || !strings.HasPrefix(a, "127.0.0.1:") && !strings.HasPrefix(a, "[::1]:") {
			t.Errorf("the guard dialled %s; want only admitted loopback ports", a)
		}
	}
	var summaries []string
	for _, e := range w.waitAudit(len(tests)) {
		summaries = append(summaries, e.Summary+" "+e.Outcome)
	}
	for _, want := range []string{"GET uncovered.test " + string(refusal.NotApproved), "CONNECT uncovered.test " + string(refusal.NotApproved), "CONNECT localhost ok"} {
		if !strings.Contains(strings.Join(summaries, "\n"), want) {
			t.Errorf("audit lines lack %q:\n%s", want, strings.Join(summaries, "\n"))
		}
	}
}
