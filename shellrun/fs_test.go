package shellrun

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/internal/secretfile"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/sandbox"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/trust"
)

// TestConfinement: whatever the caller's filesystem says, the policy
// files are protected and exist, and the secrets (the user's keys,
// ocfetch's proxy credentials and MCP token beside the user's rules, the
// trust marker) come first in the deny-read list; the caller's own
// Filesystem is left as it was.
func TestConfinement(t *testing.T) {
	ws := testws.Bare(t)
	l := testlayers.New(t, ws)
	sc, log := &scope.Scope{Workspace: ws, Layers: l.Layers}, audit.Open(ws)
	mine := filepath.Join(t.TempDir(), "mine")
	// A key file a search.json names (any *.key) is a secret too.
	if err := os.MkdirAll(l.ConfigDir, 0o700); err != nil {
		t.Fatal(err)
	}
	otherKey := filepath.Join(l.ConfigDir, "brave.key")
	if err := os.WriteFile(otherKey, []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := &sandbox.Filesystem{Writable: []string{ws.Root, mine}, DenyRead: []string{"/flag/deny"}, Protected: []string{"/flag/protected"}}
	before := *in
	got, err := Confinement(sc, log, in)
	if err != nil {
		t.Fatal(err)
	}
	var secrets []string
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		secrets = append(secrets, filepath.Join(home, ".ssh"), filepath.Join(home, ".gnupg"))
	}
	secrets = append(secrets, filepath.Join(l.ConfigDir, secretfile.ProxyCredentials), filepath.Join(l.ConfigDir, secretfile.MCPToken),
		filepath.Join(l.ConfigDir, secretfile.SearchKey), otherKey, filepath.Join(ws.Dir(), trust.MarkerFile))
	want := &sandbox.Filesystem{
		Writable:  []string{ws.Root, mine},
		Protected: append([]string{"/flag/protected"}, PolicyFiles(sc, log)...),
		DenyRead:  append(secrets, "/flag/deny"),
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(sandbox.Filesystem{})); diff != "" {
		t.Errorf("Confinement (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff(&before, in, cmpopts.IgnoreUnexported(sandbox.Filesystem{})); diff != "" {
		t.Errorf("the caller's Filesystem changed (-before +after)\n%s", diff)
	}
	for _, dir := range []string{ws.Dir(), l.ConfigDir} {
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			t.Errorf("%s: %v; want it made to exist before the command runs", dir, err)
		}
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(l.ConfigDir); err == nil && fi.Mode().Perm() != 0o700 {
			t.Errorf("configuration directory mode %v; want 0700", fi.Mode())
		}
	}
	def, err := Confinement(sc, log, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(def.Writable, []string{ws.Root}) || !slices.Contains(def.DenyRead, filepath.Join(l.ConfigDir, secretfile.MCPToken)) {
		t.Errorf("default confinement: writable %v, deny-read %v; want the workspace, and the secrets hidden", def.Writable, def.DenyRead)
	}
}

// TestExplain: --explain prints the workspace and the plan (or that there
// is no sandbox), and runs nothing.
func TestExplain(t *testing.T) {
	ws := testws.Bare(t)
	l := testlayers.New(t, ws)
	sc := &scope.Scope{Workspace: ws, Layers: l.Layers}
	var w bytes.Buffer
	if err := Explain(&w, sc, &Options{NoSandbox: true}); err != nil || w.String() != "sandbox: none (--no-sandbox): COMMAND's network and filesystem are not confined\n" {
		t.Errorf("Explain(NoSandbox) = %q, %v", w.String(), err)
	}
	// The token exists: the plan hides it.
	if err := os.MkdirAll(l.ConfigDir, 0o700); err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(l.ConfigDir, secretfile.MCPToken)
	if err := os.WriteFile(token, []byte("t\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.Reset()
	if err := Explain(&w, sc, &Options{Audit: audit.Open(ws)}); err != nil {
		t.Fatal(err)
	}
	real := func(p string) string {
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, want := range []string{"workspace: " + ws.Root + "\n", "filesystem confinement: ", "read-only (policy): " + real(ws.Dir()), "unreadable (deny-read): " + real(token)} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("Explain lacks %q:\n%s", want, w.String())
		}
	}
	for _, line := range strings.Split(w.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "writable: "); ok && !slices.Contains(strings.Split(rest, ", "), real(ws.Root)) {
			t.Errorf("writable: %s; want the workspace among them", rest)
		}
	}
}
