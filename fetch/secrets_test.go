package fetch

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/fetchargs"
	"github.com/ocfetch/ocfetch/internal/testsupport/hostile"
	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/risk"
)

// TestSecretsNeverLeak is a property test: random tokens placed in the
// path, the query, header values and the body of calls that succeed, are
// refused at prepare time, or fail at run time in every way the tool knows
// never appear in AuditSummary, in an error result (Content, Message, Hint)
// or in any log line, at the highest verbosity, of the tool or the guard.
func TestSecretsNeverLeak(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0x5ec2e7))
	token := func() string {
		const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		b := make([]byte, 20)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return "S" + string(b)
	}

	logs := &testio.SyncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: diag.L4 - 4}))
	h := newHarness(t, nil)
	h.client = egress.NewClient(&egress.Options{Timeout: 5 * time.Second, Logger: logger})
	t.Cleanup(h.client.CloseIdleConnections)
	h.f = newFetch(h.client, &Options{Logger: logger, MaxBodyBytes: 4096, Timeout: 10 * time.Second}, h.ws, risk.Permissive)
	// Only the timeout scenario runs on a short deadline: the others must
	// not fail because a loaded machine is slow.
	short := newFetch(h.client, &Options{Logger: logger, MaxBodyBytes: 4096, Timeout: 500 * time.Millisecond}, h.ws, risk.Permissive)

	_, otherPort := h.serve(&hostile.Recorder{})
	mux := http.NewServeMux()
	// Every off-target or looping redirect carries the request's own path
	// and query on, so a leak of the Location would show.
	mux.HandleFunc("/off/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:"+portString(otherPort)+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/scheme/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://127.0.0.1"+r.URL.RequestURI(), http.StatusFound)
	})
	mux.HandleFunc("/loop/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.RequestURI()+"x", http.StatusFound)
	})
	mux.Handle("/reset/", hostile.ResetMidBody(1<<20, 100))
	mux.Handle("/flood/", hostile.HeaderFlood(1000, 100))
	mux.Handle("/endless/", hostile.EndlessBody())
	mux.Handle("/ok/", echo())
	mux.HandleFunc("/slow/", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	base, port := h.serve(mux)
	// An allowlisted port nobody listens on, nor can while the test runs:
	// connection refused.
	deadPort := testnet.RefusedPort(t)
	h.ports = append(h.ports, deadPort)
	writeAllowlist(t, h.ws, h.ports...)
	dead := "http://127.0.0.1:" + portString(deadPort)

	type scenario struct {
		name string
		args func(path, query, hval, body string) map[string]any
	}
	withAll := func(url, method string) func(path, query, hval, body string) map[string]any {
		return func(path, query, hval, body string) map[string]any {
			m := map[string]any{"url": url + path + "?q=" + query, "method": method, "headers": map[string]string{"X-Api-Key": hval, "Authorization": "Bearer " + hval}}
			if method == "POST" {
				m["body"] = body
			}
			return m
		}
	}
	scenarios := []scenario{
		{"success", withAll(base+"/ok/", "POST")},
		{"body cut", withAll(base+"/endless/", "GET")},
		{"redirect off target", withAll(base+"/off/", "POST")},
		{"redirect other scheme", withAll(base+"/scheme/", "GET")},
		{"redirect loop", withAll(base+"/loop/", "GET")},
		{"reset mid body", withAll(base+"/reset/", "GET")},
		{"header flood", withAll(base+"/flood/", "GET")},
		{"connection refused", withAll(dead+"/", "POST")},
		{"http public", withAll("http://example.com/", "POST")},
		{"not public", withAll("https://10.0.0.1/", "POST")},
		{"mapped loopback", withAll("http://[::ffff:127.0.0.1]:"+portString(port)+"/", "GET")},
		{"port not allowed", withAll("http://localhost:1/", "POST")},
		{"port missing", withAll("http://localhost/", "GET")},
		{"body with GET", func(path, query, hval, body string) map[string]any {
			return map[string]any{"url": base + "/ok/" + path + "?" + query, "body": body, "headers": map[string]string{"X-A": hval}}
		}},
		{"credentials", func(path, query, hval, body string) map[string]any {
			return map[string]any{"url": "https://" + hval + ":" + body + "@example.com/" + path + "?" + query}
		}},
		{"header injection", func(path, query, hval, body string) map[string]any {
			return map[string]any{"url": base + "/ok/" + path + "?" + query, "headers": map[string]string{"X-A": hval + "\r\nX-B: " + body}}
		}},
		{"refused header", func(path, query, hval, body string) map[string]any {
			return map[string]any{"url": base + "/ok/" + path, "headers": map[string]string{"Host": hval, "Proxy-Authorization": body}}
		}},
		{"bad method", func(path, query, hval, body string) map[string]any {
			return map[string]any{"url": base + "/ok/" + path + "?" + query, "method": "PUT", "body": body}
		}},
		{"wrong type", func(path, query, hval, body string) map[string]any {
			return map[string]any{"url": base + "/ok/" + path + "?" + query, "max_length": hval}
		}},
		{"body too large", func(path, query, hval, body string) map[string]any {
			return map[string]any{"url": base + "/ok/" + path, "method": "POST", "body": strings.Repeat(body, fetchargs.MaxRequestBodyBytes/len(body)+1)}
		}},
	}
	slow := scenario{"timeout", withAll(base+"/slow/", "GET")}

	const rounds = 8
	for round := range rounds {
		list := scenarios
		if round == 0 {
			list = append(list, slow) // once: it takes the whole deadline
		}
		for _, sc := range list {
			path, query, hval, body := token(), token(), token(), token()
			secrets := []string{path, query, hval, body}
			args := argsJSON(t, sc.args(path, query, hval, body))
			f := h.f
			if sc.name == slow.name {
				f = short
			}
			summary := f.AuditSummary(args)
			res := call(context.Background(), f, args)
			check := map[string]string{"AuditSummary": summary}
			if res.IsError && (sc.name == "success" || sc.name == "body cut") {
				t.Errorf("%s: error result %s: %s; want a delivered result", sc.name, res.Reason, res.Message)
			}
			if res.IsError {
				// A refused off-target redirect hands the caller its
				// Location (which carries the request's path and query
				// here) in RedirectTo and the content's last line, by
				// design; the rest of the result, the audit summary and
				// the logs stay secret-free.
				content := res.Content
				if res.RedirectTo != "" {
					if sc.name != "redirect off target" || !strings.HasSuffix(content, "\nredirect_to: "+res.RedirectTo) {
						t.Errorf("%s: RedirectTo %q; want it on the refused redirect only, as the content's last line", sc.name, res.RedirectTo)
					}
					content = strings.TrimSuffix(content, "\nredirect_to: "+res.RedirectTo)
				}
				check["error Content"], check["error Message"], check["error Hint"] = content, res.Message, res.Hint
			} else if sc.name != "success" && sc.name != "body cut" {
				t.Errorf("%s: got a delivered result; want an error result", sc.name)
			}
			for where, text := range check {
				for _, s := range secrets {
					if strings.Contains(text, s) {
						t.Errorf("%s: %s %q contains a secret from the request", sc.name, where, text)
					}
				}
			}
			logText := logs.String()
			for _, s := range secrets {
				if strings.Contains(logText, s) {
					t.Fatalf("%s: a log line contains a secret from the request:\n%s", sc.name, logText)
				}
			}
		}
	}
	if testing.Verbose() {
		t.Logf("logs (first 3000 bytes):\n%s", logs.String()[:min(3000, len(logs.String()))])
	}
	if !strings.Contains(logs.String(), "domain=TOOLS.FETCH") {
		t.Errorf("the tool logged nothing at the highest verbosity; the property would hold vacuously")
	}
	t.Logf("%d log bytes checked", len(logs.String()))
}
