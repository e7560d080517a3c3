package proxy

import (
	"context"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/scope"
)

// TestProfileEditTakesEffectOnTheNextRequest: a proxy whose profile came
// from settings.json (scope.Open, no --profile) decides each request
// under settings.json as it is then (seed 000: an edit takes effect on the
// next call). Local mode, which needs the permissive profile, works,
// stops when the profile is lowered, works again when it is raised, and a
// settings.json made malformed refuses by name; a --profile flag stays
// fixed for the process whatever the file says.
func TestProfileEditTakesEffectOnTheNextRequest(t *testing.T) {
	for _, flag := range []string{"", "permissive"} {
		t.Run("flag="+flag, func(t *testing.T) {
			var mu sync.Mutex
			var line string // the last refusal line
			w := newWorld(t, worldOpts{tune: func(o *Options) {
				o.Refused = func(r Refusal) { mu.Lock(); line = r.Line(); mu.Unlock() }
				if _, err := risk.WriteProfile(context.Background(), o.Scope.Workspace, risk.Permissive); err != nil {
					t.Fatal(err)
				}
				sc, err := scope.Open(o.Scope.Workspace, scope.Flags{Profile: flag}, o.Scope.Layers)
				if err != nil || sc.Profile != risk.Permissive {
					t.Fatalf("scope.Open: %v, %v", sc, err)
				}
				o.Scope = sc
			}})
			ln, port := w.upstream("localhost")
			go http.Serve(ln, http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { rw.Write([]byte("dev server")) }))
			url := "http://localhost:" + strconv.Itoa(port) + "/"
			get := func(step string, wantStatus int, wantReason refusal.Code) {
				t.Helper()
				resp, err := w.client().Get(url)
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				resp.Body.Close()
				if resp.StatusCode != wantStatus || refusal.Code(resp.Header.Get(ReasonHeader)) != wantReason {
					t.Errorf("%s: got %d %q; want %d %q", step, resp.StatusCode, resp.Header.Get(ReasonHeader), wantStatus, wantReason)
				}
			}
			setProfile := func(p risk.Profile) {
				t.Helper()
				if _, err := risk.WriteProfile(context.Background(), w.ws, p); err != nil {
					t.Fatal(err)
				}
			}
			get("permissive", 200, "")
			setProfile(risk.Standard)
			if flag != "" {
				get("standard in the file, --profile permissive", 200, "")
				return
			}
			get("lowered to standard", 403, refusal.LocalProfileNotPermissive)
			// The line names the file the profile was read from, not
			// local_fetch.json (whose ports were never read).
			// The line is handed over when the exchange ends, after the
			// client has its answer: wait for it, and take it once.
			takeLine := func() string {
				for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
					mu.Lock()
					l := line
					line = ""
					mu.Unlock()
					if l != "" || time.Now().After(deadline) {
						return l
					}
				}
			}
			if l := takeLine(); !strings.Contains(l, "local_profile_not_permissive (file "+w.ws.SettingsPath()+")") {
				t.Errorf("refusal line %q; want it to name %s", l, w.ws.SettingsPath())
			}
			setProfile(risk.Permissive)
			get("raised to permissive again", 200, "")
			if err := os.WriteFile(w.ws.SettingsPath(), []byte(`{"schema_version": 1, "risk_profile": "loose"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			get("malformed", 403, refusal.SettingsInvalid)
			takeLine() // settings_invalid's
			if err := os.Remove(w.ws.SettingsPath()); err != nil {
				t.Fatal(err)
			}
			get("deleted: the default, standard", 403, refusal.LocalProfileNotPermissive)
			if l := takeLine(); !strings.Contains(l, "local_profile_not_permissive") || strings.Contains(l, "(file ") {
				t.Errorf("refusal line %q; want local_profile_not_permissive, with no file for the default profile", l)
			}
		})
	}
}
