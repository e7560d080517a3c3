package risk_test

import (
	"context"
	"os"
	"testing"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/workspace"
)

func TestWriteProfile(t *testing.T) {
	ctx := context.Background()
	ws := workspace.Workspace{Root: t.TempDir()}
	prev, err := risk.WriteProfile(ctx, ws, risk.Permissive)
	if err != nil || prev != risk.Standard {
		t.Fatalf("WriteProfile(new file) = %v, %v; want standard, nil", prev, err)
	}
	if p, err := risk.Resolve(ws, ""); err != nil || p != risk.Permissive {
		t.Fatalf("Resolve after WriteProfile = %v, %v; want permissive", p, err)
	}
	b, _ := os.ReadFile(ws.SettingsPath())
	if want := "{\n  \"schema_version\": 1,\n  \"risk_profile\": \"permissive\"\n}\n"; string(b) != want {
		t.Errorf("settings.json = %q; want %q", b, want)
	}
	if prev, err := risk.WriteProfile(ctx, ws, risk.Strict); err != nil || prev != risk.Permissive {
		t.Errorf("WriteProfile(strict) = %v, %v; want permissive, nil", prev, err)
	}
	if _, err := risk.WriteProfile(ctx, ws, risk.Profile("Permissive")); refusal.CodeOf(err) != refusal.InvalidArguments {
		t.Errorf("WriteProfile(bad name) = %v; want invalid_arguments", err)
	}
	bad := `{"schema_version": 1, "risk_profile": "loose"}`
	if err := os.WriteFile(ws.SettingsPath(), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := risk.WriteProfile(ctx, ws, risk.Standard); refusal.CodeOf(err) != refusal.SettingsInvalid {
		t.Errorf("WriteProfile over a malformed file = %v; want settings_invalid", err)
	}
	if b, _ := os.ReadFile(ws.SettingsPath()); string(b) != bad {
		t.Errorf("a malformed settings.json was rewritten: %s", b)
	}
}
