package broker_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/ocfetch/ocfetch/scope"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
)

func token(t *testing.T) string {
	t.Helper()
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "tok" + hex.EncodeToString(b)
}

// TestAuditAndLogsHoldNoSecrets is the property test of issue 4: random
// tokens placed in the path, query, header values and body of calls that
// succeed, are redirected off target, are denied, or are refused never
// appear in the audit log or in any diagnostic line, whatever the outcome.
func TestAuditAndLogsHoldNoSecrets(t *testing.T) {
	site := http.NewServeMux()
	site.HandleFunc("/ok/", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		fmt.Fprint(w, "<html><body><p>fine</p></body></html>")
	})
	site.HandleFunc("/away/", func(w http.ResponseWriter, r *http.Request) {
		// Off target: another port, with the secret path carried along.
		http.Redirect(w, r, "http://127.0.0.1:1"+r.URL.RequestURI(), http.StatusFound)
	})
	srv := httptest.NewServer(site)
	defer srv.Close()
	port := netip.MustParseAddrPort(srv.Listener.Addr().String()).Port()

	ws := testws.Bare(t)
	if err := localfetch.WriteAllowedPorts(ws, localfetch.Ports{port}); err != nil {
		t.Fatal(err)
	}
	addRule(t, ws, "127.0.0.1", port, rules.Allow)
	addRule(t, ws, "denied.example", 443, rules.Deny)

	var logs bytes.Buffer
	logger := diag.New(&logs, 4)
	client := egress.NewClient(&egress.Options{Timeout: 5 * time.Second, Logger: logger})
	defer client.CloseIdleConnections()
	f := fetch.NewFetch(client, &fetch.Options{Logger: logger})
	b := &broker.Broker{Scope: &scope.Scope{Workspace: ws, Profile: risk.Permissive, Layers: testlayers.New(t, ws).Layers}, Audit: audit.Open(ws), Logger: logger}

	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	var secrets []string
	for i := 0; i < 20; i++ {
		pathTok, queryTok, headerTok, bodyTok := token(t), token(t), token(t), token(t)
		secrets = append(secrets, pathTok, queryTok, headerTok, bodyTok)
		urls := []string{
			base + "/ok/" + pathTok + "?key=" + queryTok,
			base + "/away/" + pathTok + "?key=" + queryTok,
			"https://denied.example/" + pathTok + "?key=" + queryTok,
			"http://public.example/" + pathTok + "?key=" + queryTok,
			"https://127.0.0.2/" + pathTok + "?key=" + queryTok,
			"https://user:" + pathTok + "@example.com/?key=" + queryTok,
		}
		for _, u := range urls {
			args, err := json.Marshal(map[string]any{
				"url": u, "method": "POST", "body": bodyTok,
				"headers": map[string]string{"Authorization": "Bearer " + headerTok, "X-Api-Key": headerTok},
			})
			if err != nil {
				t.Fatal(err)
			}
			res := b.Call(context.Background(), f, string(args))
			// A refused off-target redirect hands its Location (the
			// caller's own path and query, carried along) to the caller
			// in RedirectTo and the content's last line, by design; the
			// message and hint stay secret-free, and so must the audit
			// log and the diagnostics below.
			content := res.Content
			if res.RedirectTo != "" {
				if want := "http://127.0.0.1:1/away/" + pathTok + "?key=" + queryTok; res.RedirectTo != want {
					t.Fatalf("RedirectTo %q; want %q", res.RedirectTo, want)
				}
				content = strings.TrimSuffix(content, "\nredirect_to: "+res.RedirectTo)
			}
			for _, s := range []string{pathTok, queryTok, headerTok, bodyTok} {
				if res.IsError && strings.Contains(content+res.Message+res.Hint, s) {
					t.Fatalf("error result for a %s call leaks a token: %q", res.Reason, res.Content)
				}
			}
		}
	}

	auditLog, err := os.ReadFile(ws.AuditPath())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := bytes.Count(auditLog, []byte("\n")), 20*6; got != want {
		t.Errorf("audit lines = %d; want %d", got, want)
	}
	for _, want := range []string{`"outcome":"ok"`, `"outcome":"redirect_off_target"`, `"outcome":"denied_by_rule"`,
		`"outcome":"https_required"`, `"outcome":"address_not_public"`, `"outcome":"credentials_in_url"`} {
		if !bytes.Contains(auditLog, []byte(want)) {
			t.Errorf("audit log has no line with %s", want)
		}
	}
	if logs.Len() == 0 {
		t.Fatal("no diagnostics at level 4; the log check would prove nothing")
	}
	for _, s := range secrets {
		if bytes.Contains(auditLog, []byte(s)) {
			t.Fatalf("audit log leaks token %s", s)
		}
		if bytes.Contains(logs.Bytes(), []byte(s)) {
			t.Fatalf("diagnostics leak token %s", s)
		}
	}
}
