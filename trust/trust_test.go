package trust_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/internal/rootfile"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

var fixed = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func newStore(t *testing.T) *trust.Store {
	t.Helper()
	s, err := trust.Open(&trust.Options{Dir: filepath.Join(t.TempDir(), "cfg", "ocfetch"), Now: func() time.Time { return fixed }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func trusted(t *testing.T, s *trust.Store, root string) bool {
	t.Helper()
	ok, err := s.Trusted(root)
	if err != nil {
		t.Fatalf("Trusted(%s): %v", root, err)
	}
	return ok
}

func TestTrustRevoke(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	root := mkdir(t, t.TempDir(), "proj")
	if trusted(t, s, root) {
		t.Fatal("a workspace is trusted before Trust")
	}
	if err := s.Trust(ctx, root, trust.Details{How: "ocfetch trust"}); err != nil {
		t.Fatal(err)
	}
	if !trusted(t, s, root) {
		t.Fatal("not trusted after Trust")
	}
	if !trusted(t, s, root+string(filepath.Separator)+".") {
		t.Error("an unclean spelling of the root is not the same workspace")
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	want := []trust.Entry{{Path: root, ID: list[0].ID, Incarnation: list[0].Incarnation, TrustedAt: fixed, How: "ocfetch trust"}}
	if d := cmp.Diff(want, list); d != "" {
		t.Errorf("List (-want +got):\n%s", d)
	}
	if list[0].ID == "" {
		t.Error("entry records no directory identity")
	}
	if list[0].Incarnation == "" || list[0].Outdated() {
		t.Error("entry records no incarnation")
	}
	if err := s.Trust(ctx, root, trust.Details{How: "again"}); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(); len(list) != 1 || list[0].How != "again" {
		t.Errorf("Trust twice = %v; want one entry, replaced", list)
	}
	if ok, err := s.Revoke(ctx, root); !ok || err != nil {
		t.Fatalf("Revoke = %v, %v; want true, nil", ok, err)
	}
	if trusted(t, s, root) {
		t.Error("still trusted after Revoke")
	}
	if ok, err := s.Revoke(ctx, root); ok || err != nil {
		t.Errorf("Revoke again = %v, %v; want false, nil", ok, err)
	}
	// A deleted workspace's entry can still be revoked by its path.
	gone := mkdir(t, t.TempDir(), "gone")
	if err := s.Trust(ctx, gone, trust.Details{}); err != nil {
		t.Fatal(err)
	}
	os.Remove(gone)
	if ok, err := s.Revoke(ctx, gone); !ok || err != nil {
		t.Errorf("Revoke(deleted dir) = %v, %v; want true, nil", ok, err)
	}
	if err := s.Trust(ctx, gone, trust.Details{}); err == nil {
		t.Error("Trust of a missing directory succeeded")
	}
}

// The key is the real path: a symlink to a trusted workspace is that
// workspace; a moved, renamed, replaced or copied one is not trusted.
func TestTrustKeys(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	ctx := context.Background()
	s := newStore(t)
	base := mkdir(t, t.TempDir())
	root := mkdir(t, base, "proj")
	if err := s.Trust(ctx, root, trust.Details{}); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	if !trusted(t, s, link) {
		t.Error("the workspace reached through a symlink is not trusted")
	}
	moved := filepath.Join(base, "renamed")
	if err := os.Rename(root, moved); err != nil {
		t.Fatal(err)
	}
	if trusted(t, s, moved) {
		t.Error("a renamed workspace is trusted at its new path")
	}
	if list, _ := s.List(); list[0].State() != trust.Missing {
		t.Errorf("state after the rename = %s; want %s", list[0].State(), trust.Missing)
	}
	mkdir(t, root) // another directory where the trusted one was
	if trusted(t, s, root) {
		t.Error("a directory re-created at a trusted path is trusted")
	}
	if list, _ := s.List(); list[0].State() != trust.Replaced {
		t.Errorf("state after re-creation = %s; want %s", list[0].State(), trust.Replaced)
	}
}

// A malformed or symlinked store trusts nothing, names the file, and is
// never written over.
func TestStoreFailsClosed(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	root := mkdir(t, t.TempDir(), "proj")
	if err := s.Trust(ctx, root, trust.Details{}); err != nil {
		t.Fatal(err)
	}
	bad := []byte(`{"schema_version": 1, "workspaces": [], "workspaces": []}`)
	if err := os.WriteFile(s.Path(), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	ok, err := s.Trusted(root)
	if ok || refusal.CodeOf(err) != refusal.WorkspaceUntrusted || !strings.Contains(err.Error(), s.Path()) {
		t.Errorf("Trusted with a malformed store = %v, %v; want false and workspace_untrusted naming %s", ok, err, s.Path())
	}
	if err := s.Trust(ctx, root, trust.Details{}); refusal.CodeOf(err) != refusal.WorkspaceUntrusted {
		t.Errorf("Trust over a malformed store = %v; want workspace_untrusted", err)
	}
	if b, _ := os.ReadFile(s.Path()); string(b) != string(bad) {
		t.Errorf("the malformed store was rewritten: %s", b)
	}
	if runtime.GOOS == "windows" {
		return
	}
	outside := filepath.Join(t.TempDir(), "trust.json")
	if err := os.WriteFile(outside, trust.Encode([]trust.Entry{{Path: root, TrustedAt: fixed}}), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(s.Path())
	if err := os.Symlink(outside, s.Path()); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Trusted(root); ok || !errors.Is(err, rootfile.ErrSymlink) {
		t.Errorf("Trusted through a symlinked store = %v, %v; want false, ErrSymlink", ok, err)
	}
}

func TestEnsureWorkspace(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	ws := workspace.Workspace{Root: mkdir(t, t.TempDir(), "fresh")}
	created, err := s.EnsureWorkspace(ctx, ws, "ocfetch rules allow")
	if err != nil || !created {
		t.Fatalf("EnsureWorkspace(fresh) = %v, %v; want true, nil", created, err)
	}
	if fi, err := os.Stat(ws.Dir()); err != nil || !fi.IsDir() {
		t.Fatalf(".oc_chat not created: %v", err)
	}
	if !trusted(t, s, ws.Root) {
		t.Error("a workspace whose .oc_chat ocfetch created is not trusted")
	}
	if e, _, _ := s.Lookup(ws.Root); e.How != "ocfetch rules allow" {
		t.Errorf("How = %q; want the creating command", e.How)
	}
	if created, err := s.EnsureWorkspace(ctx, ws, "x"); created || err != nil {
		t.Errorf("EnsureWorkspace again = %v, %v; want false, nil", created, err)
	}

	// A cloned .oc_chat (one holding a grant file, or anything ocfetch
	// does not write for itself) is not trusted by a later write.
	for _, shipped := range []string{"settings.json", "local_fetch.json", "rules.json", "README"} {
		clone := workspace.Workspace{Root: mkdir(t, t.TempDir(), "clone")}
		mkdir(t, clone.Dir())
		if err := os.WriteFile(filepath.Join(clone.Dir(), shipped), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if created, err := s.EnsureWorkspace(ctx, clone, "x"); created || err != nil {
			t.Errorf("EnsureWorkspace(.oc_chat with %s) = %v, %v; want false, nil", shipped, created, err)
		}
		if trusted(t, s, clone.Root) {
			t.Errorf("a workspace that came with .oc_chat/%s became trusted", shipped)
		}
	}

	// A .oc_chat/ that holds only what ocfetch writes for itself (an
	// earlier call's audit line made it) is trusted by the user's first
	// write: the first-use path that starts with a get.
	audited := workspace.Workspace{Root: mkdir(t, t.TempDir(), "audited")}
	mkdir(t, audited.Dir())
	for _, name := range []string{"audit.jsonl", "audit.jsonl.lock"} {
		if err := os.WriteFile(filepath.Join(audited.Dir(), name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := s.EnsureWorkspace(ctx, audited, "ocfetch local allow"); !ok || err != nil {
		t.Errorf("EnsureWorkspace(.oc_chat with only the audit log) = %v, %v; want true, nil", ok, err)
	}
	if !trusted(t, s, audited.Root) {
		t.Error("a .oc_chat/ holding only ocfetch's audit log was not trusted by the user's first write")
	}

	// A store that cannot be written leaves the workspace as it was.
	other := workspace.Workspace{Root: mkdir(t, t.TempDir(), "other")}
	if err := os.WriteFile(s.Path(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EnsureWorkspace(ctx, other, "x"); err == nil {
		t.Error("EnsureWorkspace with a malformed store succeeded")
	}
	if _, err := os.Lstat(other.Dir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf(".oc_chat exists after a failed EnsureWorkspace (%v)", err)
	}
}

func TestReadGrants(t *testing.T) {
	ws := workspace.Workspace{Root: mkdir(t, t.TempDir(), "ws")}
	g, err := trust.ReadGrants(ws)
	if err != nil || !g.Empty() {
		t.Fatalf("ReadGrants(empty) = %+v, %v; want empty", g, err)
	}
	write := func(name, body string) {
		t.Helper()
		if err := os.MkdirAll(ws.Dir(), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws.Dir(), name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("settings.json", `{"schema_version": 1, "risk_profile": "permissive"}`)
	write("local_fetch.json", `{"schema_version": 1, "ports": [6379, 3000]}`)
	write("rules.json", `{"schema_version": 1, "rules": [
		{"capability": "network", "target": {"schema": "network.target.v1", "host": "127.0.0.1", "port": 6379}, "decision": "allow"},
		{"capability": "network", "target": {"schema": "network.target.v1", "host": "tracker.example", "port": 443}, "decision": "deny"}]}`)
	g, err = trust.ReadGrants(ws)
	if err != nil {
		t.Fatal(err)
	}
	if g.Empty() || g.Profile != risk.Permissive || g.Ports.String() != "3000, 6379" || len(g.Allow) != 1 || len(g.Deny) != 1 || g.Strict {
		t.Errorf("ReadGrants = %+v; want permissive, ports 3000, 6379, one allow, one deny", g)
	}
	if g.Allow[0].String() != "allow 127.0.0.1:6379" || g.Allow[0].Decision != rules.Allow {
		t.Errorf("allow rule = %v", g.Allow[0])
	}
	write("settings.json", `{"schema_version": 1, "risk_profile": "strict"}`)
	if g, _ := trust.ReadGrants(ws); g.Profile != "" || !g.Strict {
		t.Errorf("strict settings: Profile %q, Strict %v; want \"\", true (a restriction, not a grant)", g.Profile, g.Strict)
	}
	write("rules.json", `{"schema_version": 1, "rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "*.co.uk", "port": 443}, "decision": "allow"}]}`)
	if _, err := trust.ReadGrants(ws); refusal.CodeOf(err) != refusal.RulesInvalid || !strings.Contains(err.Error(), ws.RulesPath()) {
		t.Errorf("ReadGrants with *.co.uk = %v; want rules_invalid naming the file", err)
	}
}

func TestParse(t *testing.T) {
	abs := "/p"
	if runtime.GOOS == "windows" {
		abs = `C:\p`
	}
	good := `{"schema_version": 1, "workspaces": [{"path": ` + quoteJSON(abs) + `, "id": "1:2", "trusted_at": "2026-12-01T10:00:00Z", "how": "ocfetch trust"}]}`
	got, err := trust.Parse([]byte(good))
	if err != nil || len(got) != 1 || got[0].Path != abs || !got[0].TrustedAt.Equal(fixed) {
		t.Fatalf("Parse(good) = %v, %v", got, err)
	}
	if back, err := trust.Parse(trust.Encode(got)); err != nil || !cmp.Equal(back, got) {
		t.Errorf("Parse(Encode(x)) = %v, %v; want %v", back, err, got)
	}
	if !got[0].Outdated() {
		t.Error("an entry without an incarnation (an older ocfetch's) is not outdated")
	}
	entry := func(fields string) string { return `{"schema_version": 1, "workspaces": [{` + fields + `}]}` }
	// The added field: read, and written back.
	for _, inc := range []string{"birth:1796158028.498590335", "birth:1a2b3c4d5e6f708192a3b4c5d6e7f801@134090000000000000", "marker:" + strings.Repeat("0f", 32)} {
		doc := entry(`"path": ` + quoteJSON(abs) + `, "id": "1:2", "incarnation": "` + inc + `", "trusted_at": "2026-12-01T10:00:00Z", "how": ""`)
		got, err := trust.Parse([]byte(doc))
		if err != nil || len(got) != 1 || got[0].Incarnation != inc || got[0].Outdated() {
			t.Errorf("Parse(incarnation %s) = %+v, %v", inc, got, err)
			continue
		}
		if back, err := trust.Parse(trust.Encode(got)); err != nil || !cmp.Equal(back, got) {
			t.Errorf("Parse(Encode(%+v)) = %+v, %v", got, back, err)
		}
	}
	withInc := func(inc string) string {
		return entry(`"path": ` + quoteJSON(abs) + `, "id": "", "incarnation": ` + inc + `, "trusted_at": "2026-12-01T10:00:00Z", "how": ""`)
	}
	for name, doc := range map[string]string{
		"empty":                 ``,
		"not an object":         `[]`,
		"no version":            `{"workspaces": []}`,
		"version 2":             `{"schema_version": 2, "workspaces": []}`,
		"version 1.0":           `{"schema_version": 1.0, "workspaces": []}`,
		"no workspaces":         `{"schema_version": 1}`,
		"unknown key":           `{"schema_version": 1, "workspaces": [], "extra": 1}`,
		"duplicate key":         `{"schema_version": 1, "schema_version": 1, "workspaces": []}`,
		"relative path":         entry(`"path": "p", "id": "", "trusted_at": "2026-12-01T10:00:00Z", "how": ""`),
		"unclean path":          entry(`"path": ` + quoteJSON(abs+string(filepath.Separator)+"..") + `, "id": "", "trusted_at": "2026-12-01T10:00:00Z", "how": ""`),
		"missing how":           entry(`"path": ` + quoteJSON(abs) + `, "id": "", "trusted_at": "2026-12-01T10:00:00Z"`),
		"bad time":              entry(`"path": ` + quoteJSON(abs) + `, "id": "", "trusted_at": "yesterday", "how": ""`),
		"number id":             entry(`"path": ` + quoteJSON(abs) + `, "id": 1, "trusted_at": "2026-12-01T10:00:00Z", "how": ""`),
		"key misplaced":         `{"schema_version": 1, "workspaces": [], "path": "/p"}`,
		"nested":                entry(`"path": {"path": "/p"}`),
		"trailing data":         `{"schema_version": 1, "workspaces": []} {}`,
		"listed twice":          `{"schema_version": 1, "workspaces": [` + strings.Repeat(`{"path": `+quoteJSON(abs)+`, "id": "", "trusted_at": "2026-12-01T10:00:00Z", "how": ""},`, 2) + `{"path": "/q", "id": "", "trusted_at": "2026-12-01T10:00:00Z", "how": ""}]}`,
		"invalid utf-8":         "{\"schema_version\": 1, \"workspaces\": [], \"\xff\": 1}",
		"entry a string":        `{"schema_version": 1, "workspaces": ["/p"]}`,
		"empty incarnation":     withInc(`""`),
		"incarnation kind":      withInc(`"inode:12"`),
		"birth without value":   withInc(`"birth:"`),
		"birth odd characters":  withInc(`"birth:12 34"`),
		"birth too long":        withInc(`"birth:` + strings.Repeat("1", 129) + `"`),
		"marker short":          withInc(`"marker:abcd"`),
		"marker upper case":     withInc(`"marker:` + strings.Repeat("0F", 32) + `"`),
		"incarnation number":    withInc(`1`),
		"incarnation twice":     entry(`"path": ` + quoteJSON(abs) + `, "id": "", "incarnation": "birth:1.000000000", "incarnation": "birth:1.000000000", "trusted_at": "2026-12-01T10:00:00Z", "how": ""`),
		"incarnation, no how":   entry(`"path": ` + quoteJSON(abs) + `, "id": "", "incarnation": "birth:1.000000000", "trusted_at": "2026-12-01T10:00:00Z"`),
		"incarnation top level": `{"schema_version": 1, "workspaces": [], "incarnation": "birth:1.000000000"}`,
	} {
		if got, err := trust.Parse([]byte(doc)); err == nil {
			t.Errorf("%s: Parse(%q) = %v, nil; want an error", name, doc, got)
		}
	}
}

func quoteJSON(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

func TestUntrusted(t *testing.T) {
	err := trust.Untrusted("/src/my proj", "/src/my proj/.oc_chat/rules.json", "allow 127.0.0.1:6379")
	if err.Code != refusal.WorkspaceUntrusted {
		t.Errorf("code = %s; want workspace_untrusted", err.Code)
	}
	if want := `workspace /src/my proj is not trusted, so "allow 127.0.0.1:6379" in /src/my proj/.oc_chat/rules.json was ignored`; err.Message != want {
		t.Errorf("message = %q; want %q", err.Message, want)
	}
	if want := "run `ocfetch trust --root '/src/my proj'`"; !strings.Contains(err.Hint, want) {
		t.Errorf("hint = %q; want it to hold %s", err.Hint, want)
	}
}

// TestEnsuredLine: what Ensure did is said in one line naming the root
// (sanitised) and the undo command; nothing when it trusted nothing.
func TestEnsuredLine(t *testing.T) {
	ws := workspace.Workspace{Root: "/p/proj\x1b[2J"}
	for _, tc := range []struct {
		e    trust.Ensured
		want string
	}{
		{trust.Ensured{Trusted: true, Created: true}, "trusted: /p/proj\uFFFD[2J (ocfetch created its .oc_chat/; `ocfetch trust --revoke` undoes this)"},
		{trust.Ensured{Trusted: true}, "trusted: /p/proj\uFFFD[2J (its .oc_chat/ held only ocfetch's own files: the audit log, lock files; `ocfetch trust --revoke` undoes this)"},
		{trust.Ensured{}, ""},
	} {
		if got := tc.e.Line(ws); got != tc.want {
			t.Errorf("%+v.Line = %q; want %q", tc.e, got, tc.want)
		}
	}
}
