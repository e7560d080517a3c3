package rules_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/internal/rootfile"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
)

// The user's rules file goes through the same Add/Remove/Load cycle as a
// workspace's, in a directory of the caller's choosing.
func TestLocationAddRemove(t *testing.T) {
	ctx := context.Background()
	loc := rules.Location{Dir: filepath.Join(t.TempDir(), "ocfetch"), Name: "rules.json"}
	set, err := rules.LoadAt(loc)
	if err != nil || set.Len() != 0 {
		t.Fatalf("LoadAt(missing) = %v, %v; want an empty set", set.Rules(), err)
	}
	if err := rules.AddAt(ctx, loc, rule(rules.Allow, "Example.COM", 443)); err != nil {
		t.Fatal(err)
	}
	if err := rules.AddAt(ctx, loc, rule(rules.Deny, "*.tracker.example", 443)); err != nil {
		t.Fatal(err)
	}
	set, err = rules.LoadAt(loc)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"deny *.tracker.example:443", "allow example.com:443"}
	var got []string
	for _, r := range set.Rules() {
		got = append(got, r.String())
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("rules after AddAt (-want +got):\n%s", d)
	}
	removed, err := rules.RemoveAt(ctx, loc, "example.com", 443)
	if err != nil || !removed {
		t.Fatalf("RemoveAt = %v, %v; want true, nil", removed, err)
	}
	if removed, err := rules.RemoveAt(ctx, loc, "example.com", 443); err != nil || removed {
		t.Fatalf("RemoveAt again = %v, %v; want false, nil", removed, err)
	}
	if set, _ := rules.LoadAt(loc); set.Len() != 1 {
		t.Errorf("%d rules left; want 1", set.Len())
	}
	if err := rules.AddAt(ctx, loc, rule(rules.Allow, "*.co.uk", 443)); refusal.CodeOf(err) != refusal.InvalidHost {
		t.Errorf("AddAt(*.co.uk) = %v; want invalid_host", err)
	}
}

// A malformed or symlinked user file is refused by name; nothing is written
// over it or through it.
func TestLocationFailsClosed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	loc := rules.Location{Dir: dir, Name: "rules.json"}
	if err := os.WriteFile(loc.Path(), []byte(`{"schema_version": 1, "rules": [], "extra": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := rules.LoadAt(loc)
	if refusal.CodeOf(err) != refusal.RulesInvalid || !strings.Contains(err.Error(), loc.Path()) {
		t.Errorf("LoadAt(malformed) = %v; want rules_invalid naming %s", err, loc.Path())
	}
	if err := rules.AddAt(ctx, loc, rule(rules.Allow, "example.com", 443)); refusal.CodeOf(err) != refusal.RulesInvalid {
		t.Errorf("AddAt over a malformed file = %v; want rules_invalid", err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.json")
	os.Remove(loc.Path())
	if err := os.Symlink(outside, loc.Path()); err != nil {
		t.Fatal(err)
	}
	if _, err := rules.LoadAt(loc); !errors.Is(err, rootfile.ErrSymlink) || refusal.CodeOf(err) != refusal.RulesInvalid {
		t.Errorf("LoadAt(dangling symlink) = %v; want rules_invalid wrapping ErrSymlink", err)
	}
	if err := rules.AddAt(ctx, loc, rule(rules.Allow, "example.com", 443)); !errors.Is(err, rootfile.ErrSymlink) {
		t.Errorf("AddAt through a symlink = %v; want ErrSymlink", err)
	}
	if _, err := os.Lstat(outside); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s was created through the symlink", outside)
	}
}

func TestDecodeRules(t *testing.T) {
	got, err := rules.DecodeRules([]byte(`[{"capability": "network", "target": {"schema": "network.target.v1", "host": "Example.COM", "port": 443}, "decision": "deny"}]`))
	if err != nil || len(got) != 1 || got[0].String() != "deny example.com:443" {
		t.Fatalf("DecodeRules = %v, %v; want [deny example.com:443]", got, err)
	}
	for _, bad := range []string{
		`{}`,
		`[{"capability": "network", "target": {"schema": "network.target.v1", "host": "example.com", "port": "443"}, "decision": "deny"}]`,
		`[{"capability": "network", "target": {"schema": "network.target.v1", "host": "*.github.io", "port": 443}, "decision": "allow"}]`,
		`[{"capability": "network", "target": {"schema": "network.target.v1", "host": "example.com", "port": 443}}]`,
	} {
		if _, err := rules.DecodeRules([]byte(bad)); err == nil {
			t.Errorf("DecodeRules(%s) = nil error; want a refusal", bad)
		}
	}
}
