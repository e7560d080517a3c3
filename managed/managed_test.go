package managed_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/rootfile"
	"github.com/ocfetch/ocfetch/managed"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
)

// me is an Administrator check that accepts the test's own user, so that a
// file in a temporary directory can stand in for /etc/ocfetch/policy.json.
func me(owner string) bool { return owner == strconv.Itoa(os.Getuid()) }

func policyFile(t testing.TB, body string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ocfetch")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, managed.FileName)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func load(path string) (managed.Policy, error) {
	return managed.Load(&managed.Options{Path: path, Administrator: me})
}

func TestAbsentChangesNothing(t *testing.T) {
	for _, path := range []string{
		filepath.Join(t.TempDir(), "policy.json"),
		filepath.Join(t.TempDir(), "no-such-dir", "policy.json"),
	} {
		p, err := load(path)
		if err != nil || p.Present() {
			t.Fatalf("Load(absent) = %+v, %v; want the zero Policy", p, err)
		}
		for _, prof := range risk.Profiles {
			if got := p.Cap(prof); got != prof {
				t.Errorf("absent policy caps %s to %s", prof, got)
			}
		}
		if p.ManagedRulesOnly || p.NoAllowOnce || p.RequireSandbox || p.NoTrustFlag || p.Rules.Len() != 0 {
			t.Errorf("absent policy restricts something: %+v", p)
		}
	}
}

func TestLoad(t *testing.T) {
	path := policyFile(t, `{"schema_version": 1,
		"rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "Evil.Example", "port": 443}, "decision": "deny"},
		          {"capability": "network", "target": {"schema": "network.target.v1", "host": "*.corp.example", "port": 443}, "decision": "allow"}],
		"max_profile": "strict", "managed_rules_only": true, "allow_once": false, "require_sandbox": true, "allow_public_https": false,
		"allow_trust_flag": false}`)
	p, err := load(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.File != path || !p.Present() || p.MaxProfile != risk.Strict || !p.ManagedRulesOnly || !p.NoAllowOnce || !p.RequireSandbox || !p.NoPublicHTTPS || !p.NoTrustFlag {
		t.Errorf("Load = %+v", p)
	}
	if m, ok := p.Rules.Decide(capability.Network(capability.MustTarget("evil.example", 443))); !ok || m.Decision != rules.Deny {
		t.Errorf("managed deny rule does not decide evil.example: %v, %v", m, ok)
	}
	if got := p.Cap(risk.Permissive); got != risk.Strict {
		t.Errorf("Cap(permissive) = %s; want strict", got)
	}
}

// Every field is optional: {} is a present policy with the defaults —
// max_profile standard (no local mode), allow_once true, the rest false.
func TestDefaults(t *testing.T) {
	p, err := load(policyFile(t, `{}`))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Present() || p.MaxProfile != risk.Standard || p.NoAllowOnce || p.ManagedRulesOnly || p.RequireSandbox || p.NoPublicHTTPS || p.Rules.Len() != 0 {
		t.Errorf("Load({}) = %+v; want the defaults", p)
	}
	if p.Cap(risk.Permissive) != risk.Standard || p.Allows(risk.Permissive) || !p.Allows(risk.Strict) {
		t.Errorf("the default cap lets permissive through")
	}
}

// A profile that is not one of the three (the zero Profile of a caller
// that did not resolve one, a misspelt name) is not below any cap: it is
// capped to max_profile, never let through above it.
func TestCapUnknownProfile(t *testing.T) {
	for _, max := range risk.Profiles {
		p := managed.Policy{File: "policy.json", MaxProfile: max}
		for _, prof := range []risk.Profile{"", "Permissive", "permissive ", "root"} {
			if got := p.Cap(prof); got != max {
				t.Errorf("max_profile %s: Cap(%q) = %q; want %s", max, prof, got, max)
			}
			if p.Allows(prof) {
				t.Errorf("max_profile %s: Allows(%q) = true; want false", max, prof)
			}
		}
	}
	// No cap: nothing changes, as for the absent policy.
	if got := (managed.Policy{}).Cap(""); got != "" {
		t.Errorf("no policy: Cap(\"\") = %q; want it unchanged", got)
	}
}

func TestMalformedRefusesByName(t *testing.T) {
	rule := func(host string) string {
		return `{"capability": "network", "target": {"schema": "network.target.v1", "host": "` + host + `", "port": 443}, "decision": "allow"}`
	}
	for name, body := range map[string]string{
		"empty":                 ``,
		"not json":              `max_profile = strict`,
		"array":                 `[]`,
		"trailing":              `{} {}`,
		"unknown field":         `{"max_profle": "strict"}`,
		"duplicate":             `{"allow_once": true, "allow_once": false}`,
		"version 2":             `{"schema_version": 2}`,
		"version string":        `{"schema_version": "1"}`,
		"bad profile":           `{"max_profile": "Permissive"}`,
		"bool as string":        `{"allow_once": "false"}`,
		"trust flag as string":  `{"allow_trust_flag": "false"}`,
		"trust flag null":       `{"allow_trust_flag": null}`,
		"rules object":          `{"rules": {}}`,
		"rule key at top":       `{"host": "example.com"}`,
		"public suffix":         `{"rules": [` + rule("*.github.io") + `]}`,
		"rule missing port":     `{"rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "a.example"}, "decision": "deny"}]}`,
		"rule unknown key":      `{"rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "a.example", "port": 443}, "decision": "deny", "note": "x"}]}`,
		"top key inside rule":   `{"rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "a.example", "port": 443}, "decision": "deny", "allow_once": true}]}`,
		"invalid utf-8":         "{\"max_profile\": \"\xff\"}",
		"deep":                  `{"rules": [[[[[[[[[]]]]]]]]]}`,
		"rule in wrong nesting": `{"rules": [[` + rule("a.example") + `]]}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := policyFile(t, body)
			_, err := load(path)
			if refusal.CodeOf(err) != refusal.ManagedPolicyInvalid || !strings.Contains(err.Error(), path) {
				t.Errorf("Load(%q) = %v; want managed_policy_invalid naming %s", body, err, path)
			}
		})
	}
}

func TestNotRegularOrNotAdmin(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix modes and symlinks")
	}
	check := func(name, path string, admin func(string) bool, want error) {
		t.Helper()
		_, err := managed.Load(&managed.Options{Path: path, Administrator: admin})
		if refusal.CodeOf(err) != refusal.ManagedPolicyInvalid || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: Load = %v; want managed_policy_invalid naming %s", name, err, path)
		}
		if want != nil && !errors.Is(err, want) {
			t.Errorf("%s: Load = %v; want it to wrap %v", name, err, want)
		}
	}
	// Not owned by an administrator: the real default check, for a file
	// the (non-root) test user owns.
	if os.Getuid() != 0 {
		check("owned by a user", policyFile(t, `{}`), nil, nil)
	}
	check("owner rejected", policyFile(t, `{}`), func(string) bool { return false }, nil)

	groupWritable := policyFile(t, `{}`)
	if err := os.Chmod(groupWritable, 0o664); err != nil {
		t.Fatal(err)
	}
	check("group-writable file", groupWritable, me, nil)

	worldDir := policyFile(t, `{}`)
	if err := os.Chmod(filepath.Dir(worldDir), 0o777); err != nil {
		t.Fatal(err)
	}
	check("world-writable directory", worldDir, me, nil)

	dirPath := policyFile(t, `{}`)
	os.Remove(dirPath)
	if err := os.Mkdir(dirPath, 0o755); err != nil {
		t.Fatal(err)
	}
	check("a directory", dirPath, me, rootfile.ErrNotRegular)

	link := policyFile(t, `{}`)
	real := link + ".real"
	if err := os.Rename(link, real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	check("a symlink", link, me, rootfile.ErrSymlink)
}

func TestDefaultPath(t *testing.T) {
	p, err := managed.DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"linux":   "/etc/ocfetch/policy.json",
		"freebsd": "/etc/ocfetch/policy.json",
		"darwin":  "/Library/Application Support/ocfetch/policy.json",
	}[runtime.GOOS]
	if want != "" && p != want {
		t.Errorf("DefaultPath() = %s; want %s", p, want)
	}
	if runtime.GOOS == "windows" && !strings.HasSuffix(p, `\ocfetch\policy.json`) {
		t.Errorf("DefaultPath() = %s; want %%ProgramData%%\\ocfetch\\policy.json", p)
	}
}
