// Package testlayers gives tests the layers around a workspace (issue 12)
// in their own temporary directory: a managed policy path, a trust store
// and a user rules file, none of them the real os.UserConfigDir() or
// /etc/ocfetch.
//
//	l := testlayers.New(t, ws)            // ws trusted, no managed policy, no user rules
//	d := policy.Decide(ctx, policy.Args{…, Layers: l.Layers})
//	l.WriteManaged(t, `{"max_profile": "standard"}`)
package testlayers

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ocfetch/ocfetch/managed"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

// Files are one test's layer files.
type Files struct {
	// Layers is what Decide and the front ends take.
	Layers *policy.Layers
	// ConfigDir holds trust.json and the user's rules.json.
	ConfigDir string
	// ManagedPath is the managed policy file (absent until WriteManaged).
	ManagedPath string
	Store       *trust.Store
}

// New returns fresh layer files under t.TempDir(), with each of trusted
// in the trust store.
func New(t testing.TB, trusted ...workspace.Workspace) *Files {
	t.Helper()
	dir := t.TempDir()
	f := &Files{
		ConfigDir:   filepath.Join(dir, "config", "ocfetch"),
		ManagedPath: filepath.Join(dir, "etc", "ocfetch", managed.FileName),
	}
	s, err := trust.Open(&trust.Options{Dir: f.ConfigDir})
	if err != nil {
		t.Fatal(err)
	}
	f.Store = s
	user := rules.Location{Dir: f.ConfigDir, Name: workspace.RulesFile}
	f.Layers = &policy.Layers{
		Managed: &managed.Options{Path: f.ManagedPath, Administrator: Admin},
		Trust:   s,
		User:    &user,
	}
	for _, ws := range trusted {
		f.Trust(t, ws)
	}
	return f
}

// Trust adds ws to the trust store.
func (f *Files) Trust(t testing.TB, ws workspace.Workspace) {
	t.Helper()
	if err := f.Store.Trust(context.Background(), ws.Root, trust.Details{How: "test"}); err != nil {
		t.Fatal(err)
	}
}

// Revoke removes ws from the trust store.
func (f *Files) Revoke(t testing.TB, ws workspace.Workspace) {
	t.Helper()
	if _, err := f.Store.Revoke(context.Background(), ws.Root); err != nil {
		t.Fatal(err)
	}
}

// WriteManaged writes the managed policy file (0644 in a 0755 directory).
func (f *Files) WriteManaged(t testing.TB, doc string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(f.ManagedPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(f.ManagedPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.ManagedPath, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// AddUserRule saves r in the user's rules file.
func (f *Files) AddUserRule(t testing.TB, r rules.Rule) {
	t.Helper()
	if err := rules.AddAt(context.Background(), *f.Layers.User, r); err != nil {
		t.Fatal(err)
	}
}
