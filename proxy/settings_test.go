package proxy

import (
	"context"
	"net/http"
	"os"
	"strconv"
	"testing"

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
			w := newWorld(t, worldOpts{tune: func(o *Options) {
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
			setProfile(risk.Permissive)
			get("raised to permissive again", 200, "")
			if err := os.WriteFile(w.ws.SettingsPath(), []byte(`{"schema_version": 1, "risk_profile": "loose"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			get("malformed", 403, refusal.SettingsInvalid)
			if err := os.Remove(w.ws.SettingsPath()); err != nil {
				t.Fatal(err)
			}
			get("deleted: the default, standard", 403, refusal.LocalProfileNotPermissive)
		})
	}
}
