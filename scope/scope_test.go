package scope_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/scope"
)

// TestOpen: a flag beats settings.json, for the profile and for the
// upstream proxy ("none" turns settings.json's off), and each setting says
// where it came from; only settings.json's upstream is a workspace grant.
func TestOpen(t *testing.T) {
	const settings = `{"schema_version": 1, "risk_profile": "permissive", "upstream_proxy": "http://127.0.0.1:3128"}`
	tests := []struct {
		name         string
		settings     string // "" for no settings.json
		flags        scope.Flags
		profile      risk.Profile
		profileFrom  scope.Source
		upstream     string
		upstreamFrom scope.Source
		wsUpstream   string
	}{
		{"nothing", "", scope.Flags{}, risk.Standard, scope.FromDefault, "", scope.FromDefault, ""},
		{"settings", settings, scope.Flags{}, risk.Permissive, scope.FromSettings, "127.0.0.1:3128", scope.FromSettings, "127.0.0.1:3128"},
		{"settings without a profile", `{"schema_version": 1}`, scope.Flags{}, risk.Standard, scope.FromSettings, "", scope.FromDefault, ""},
		{"profile flag beats settings", settings, scope.Flags{Profile: "strict"}, risk.Strict, scope.FromFlag, "127.0.0.1:3128", scope.FromSettings, "127.0.0.1:3128"},
		{"upstream flag beats settings", settings, scope.Flags{Upstream: "http://127.0.0.1:8080"}, risk.Permissive, scope.FromSettings, "127.0.0.1:8080", scope.FromFlag, ""},
		{"none turns settings' upstream off", settings, scope.Flags{Upstream: "NONE"}, risk.Permissive, scope.FromSettings, "", scope.FromDefault, ""},
		{"settings' upstream not read", settings, scope.Flags{NoSettingsUpstream: true}, risk.Permissive, scope.FromSettings, "", scope.FromDefault, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := testws.Bare(t)
			if tc.settings != "" {
				testws.Write(t, ws, testws.Spec{})
				testws.WriteFile(t, ws.SettingsPath(), tc.settings)
			}
			sc, err := scope.Open(ws, tc.flags, nil)
			if err != nil {
				t.Fatal(err)
			}
			var up string
			if sc.Upstream != nil {
				up = sc.Upstream.Addr
			}
			if sc.Profile != tc.profile || sc.ProfileFrom != tc.profileFrom || up != tc.upstream || sc.UpstreamFrom != tc.upstreamFrom || sc.WorkspaceUpstream() != tc.wsUpstream {
				t.Errorf("scope = profile %s from %s, upstream %q from %s, workspace upstream %q; want %s from %s, %q from %s, %q",
					sc.Profile, sc.ProfileFrom, up, sc.UpstreamFrom, sc.WorkspaceUpstream(), tc.profile, tc.profileFrom, tc.upstream, tc.upstreamFrom, tc.wsUpstream)
			}
			a := sc.Args(policy.FrontProxy, capability.Origin{Target: capability.MustTarget("example.com", 443)})
			if a.ProfileExplicit != (tc.profileFrom == scope.FromFlag) || a.WorkspaceUpstream != tc.wsUpstream || a.Front != policy.FrontProxy || a.Profile != tc.profile {
				t.Errorf("Args = %+v; want the scope's profile, explicit only from a flag, the workspace upstream only from settings", a)
			}
		})
	}
}

// TestOpenErrors: a bad flag is a FlagError naming the flag; a bad
// settings.json is settings_invalid naming the file.
func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name     string
		settings string
		flags    scope.Flags
		flag     string
		code     refusal.Code
	}{
		{"bad profile flag", "", scope.Flags{Profile: "lax"}, "--profile", ""},
		{"bad upstream flag", "", scope.Flags{Upstream: "socks5://127.0.0.1:1080"}, "--upstream-proxy", ""},
		{"bad settings", `{"schema_version": 2}`, scope.Flags{}, "", refusal.SettingsInvalid},
		{"bad settings upstream", `{"schema_version": 1, "upstream_proxy": "socks5://proxy.example:1"}`, scope.Flags{}, "", refusal.SettingsInvalid},
		{"a flag spares a bad settings upstream", `{"schema_version": 1, "upstream_proxy": "socks5://proxy.example:1"}`, scope.Flags{Upstream: "none"}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := testws.Bare(t)
			if tc.settings != "" {
				testws.Write(t, ws, testws.Spec{})
				testws.WriteFile(t, ws.SettingsPath(), tc.settings)
			}
			_, err := scope.Open(ws, tc.flags, nil)
			var fe *scope.FlagError
			switch {
			case tc.flag != "":
				if !errors.As(err, &fe) || fe.Flag != tc.flag {
					t.Errorf("err = %v; want a FlagError for %s", err, tc.flag)
				}
			case tc.code != "":
				if refusal.CodeOf(err) != tc.code {
					t.Errorf("err = %v; want %s", err, tc.code)
				}
			case err != nil:
				t.Errorf("err = %v; want none", err)
			}
		})
	}
}

// TestArgsContext: the profile of a call made now is settings.json's as it
// is now when the scope's came from settings.json or the default, and
// stays the scope's when a flag (or an embedder, with no source) set it; a
// settings.json malformed now is settings_invalid.
func TestArgsContext(t *testing.T) {
	o := capability.Origin{Target: capability.MustTarget("example.com", 443)}
	tests := []struct {
		name     string
		at, now  string // settings.json when the scope is opened, and at the call ("": none)
		flags    scope.Flags
		embedder *scope.Scope // instead of Open
		want     risk.Profile
		wantErr  refusal.Code
	}{
		{"settings edited", `{"schema_version": 1, "risk_profile": "permissive"}`, `{"schema_version": 1, "risk_profile": "strict"}`, scope.Flags{}, nil, risk.Strict, ""},
		{"settings created", "", `{"schema_version": 1, "risk_profile": "permissive"}`, scope.Flags{}, nil, risk.Permissive, ""},
		{"settings deleted", `{"schema_version": 1, "risk_profile": "permissive"}`, "", scope.Flags{}, nil, risk.Standard, ""},
		{"settings made malformed", `{"schema_version": 1, "risk_profile": "permissive"}`, `{"risk_profile": "permissive"`, scope.Flags{}, nil, "", refusal.SettingsInvalid},
		{"a flag stays", `{"schema_version": 1, "risk_profile": "strict"}`, `{"schema_version": 1, "risk_profile": "permissive"}`, scope.Flags{Profile: "standard"}, nil, risk.Standard, ""},
		{"an embedder's profile stays", "", `{"schema_version": 1, "risk_profile": "strict"}`, scope.Flags{}, &scope.Scope{Profile: risk.Permissive}, risk.Permissive, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := testws.Bare(t)
			testws.Write(t, ws, testws.Spec{})
			set := func(content string) {
				if content == "" {
					os.Remove(ws.SettingsPath())
					return
				}
				testws.WriteFile(t, ws.SettingsPath(), content)
			}
			set(tc.at)
			sc := tc.embedder
			if sc == nil {
				var err error
				if sc, err = scope.Open(ws, tc.flags, nil); err != nil {
					t.Fatal(err)
				}
			}
			sc.Workspace = ws
			set(tc.now)
			a, err := sc.ArgsContext(context.Background(), policy.FrontProxy, o)
			if tc.wantErr != "" {
				if r, ok := refusal.As(err); !ok || r.Code != tc.wantErr {
					t.Fatalf("err = %v; want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || a.Profile != tc.want {
				t.Fatalf("ArgsContext: profile %s, %v; want %s", a.Profile, err, tc.want)
			}
			if a.ProfileExplicit != (sc.ProfileFrom == scope.FromFlag) || a.Front != policy.FrontProxy || a.Origin != o {
				t.Errorf("Args = %+v; want Args's other fields", a)
			}
		})
	}
}
