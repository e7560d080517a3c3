package mcpserver

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// TestFailuresThroughMCP checks that refusals of local mode, of the rule
// store and failures of the request itself reach the client as error
// results with their reason code, like the policy refusals of TestRefusals.
func TestFailuresThroughMCP(t *testing.T) {
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://example.com/elsewhere", http.StatusFound)
	}))
	defer redirect.Close()
	redirectPort := portOf(t, redirect.URL)

	closedPort := testnet.RefusedPort(t) // nothing listens there, nor can

	tests := []struct {
		name     string
		url      string
		spec     testws.Spec
		wantCode string
	}{
		{"local port missing", "http://localhost/", testws.Spec{Profile: "permissive", LocalPorts: []uint16{8080}}, "local_port_missing"},
		{"local allowlist missing", "http://localhost:8080/", testws.Spec{Profile: "permissive"}, "local_allowlist_missing"},
		{"local allowlist invalid", "http://localhost:8080/", testws.Spec{Profile: "permissive", RawLocal: `{"schema_version": 1, "ports": ["8080"]}`}, "local_allowlist_invalid"},
		{"rules file invalid", "https://example.com/", testws.Spec{RawRules: `{"schema_version": 1, "rules": [`}, "rules_invalid"},
		{
			"redirect off target", redirect.URL + "/start",
			testws.Spec{Profile: "permissive", LocalPorts: []uint16{redirectPort}, Allow: []string{fmt.Sprintf("127.0.0.1:%d", redirectPort)}},
			"redirect_off_target",
		},
		{
			"connection refused", fmt.Sprintf("http://127.0.0.1:%d/", closedPort),
			testws.Spec{Profile: "permissive", LocalPorts: []uint16{closedPort}, Allow: []string{fmt.Sprintf("127.0.0.1:%d", closedPort)}},
			"connection_failed",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := trustedWS(t, tc.spec)
			cs := connect(t, &Options{Root: ws.Root}, clientSpec{})
			res := callFetch(t, cs, fmt.Sprintf(`{"url": %q}`, tc.url))
			if !res.IsError || !strings.HasPrefix(text(res), tc.wantCode+": ") {
				t.Errorf("isError %v, text %q; want %s", res.IsError, text(res), tc.wantCode)
			}
			// The path is the caller's only in a refused redirect's
			// redirect_to (TestRedirectToThroughMCP).
			if strings.Contains(text(res), "/start") || (tc.wantCode != "redirect_off_target" && strings.Contains(text(res), "/elsewhere")) {
				t.Errorf("text %q holds a path", text(res))
			}
			if res.StructuredContent != nil && tc.wantCode != "redirect_off_target" {
				t.Errorf("error result carries structured content %v", res.StructuredContent)
			}
			if raw, _ := os.ReadFile(ws.AuditPath()); strings.Contains(string(raw), "/elsewhere") {
				t.Errorf("audit log holds the redirect's path: %s", raw)
			}
			lines := auditLines(t, ws)
			if len(lines) != 1 || lines[0]["outcome"] != tc.wantCode {
				t.Errorf("audit = %v; want one line with outcome %s", lines, tc.wantCode)
			}
		})
	}
}

func portOf(t *testing.T, rawURL string) uint16 {
	t.Helper()
	_, p, err := net.SplitHostPort(strings.TrimPrefix(rawURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	var port uint16
	if _, err := fmt.Sscan(p, &port); err != nil {
		t.Fatal(err)
	}
	return port
}
