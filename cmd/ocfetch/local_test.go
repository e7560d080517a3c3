package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLocal(t *testing.T) {
	root := newRoot(t)
	ws := wsOf(t, root)
	path := ws.LocalFetchPath()
	steps := []struct {
		args   []string
		stdout string
	}{
		{[]string{"local", "show"}, "" +
			"allowlist: " + path + "\n" +
			"ports:     none (the file does not exist)\n" +
			"profile standard: local mode is OFF (needs permissive)\n"},
		{[]string{"local", "allow", "8080"}, "" +
			"trusted: " + root + " (ocfetch created its .oc_chat/; `ocfetch trust --revoke` undoes this)\n" +
			"allowed: port 8080 in " + path + " (ports: 8080)\n" +
			"note: profile standard does not admit local mode; it needs permissive (--profile permissive, or \"risk_profile\" in " + ws.SettingsPath() + ")\n"},
		{[]string{"--profile", "permissive", "local", "allow", "3000"}, "allowed: port 3000 in " + path + " (ports: 3000, 8080)\n"},
		{[]string{"--profile", "permissive", "local", "allow", "3000"}, "unchanged: port 3000 in " + path + " (ports: 3000, 8080)\n"},
		{[]string{"--profile", "permissive", "local", "show"}, "" +
			"allowlist: " + path + "\n" +
			"ports:     3000, 8080\n" +
			"profile permissive: local mode is ON for ports 3000, 8080\n"},
		{[]string{"--profile", "strict", "local", "show"}, "" +
			"allowlist: " + path + "\n" +
			"ports:     3000, 8080\n" +
			"profile strict: local mode is OFF (needs permissive)\n"},
		{[]string{"local", "revoke", "8080"}, "revoked: port 8080 from " + path + " (ports: 3000)\n"},
		{[]string{"local", "revoke", "8080"}, "unchanged: port 8080 is not in " + path + " (ports: 3000)\n"},
		{[]string{"local", "revoke", "3000"}, "revoked: port 3000 from " + path + " (ports: none)\n"},
		{[]string{"--profile", "permissive", "local", "show"}, "" +
			"allowlist: " + path + "\n" +
			"ports:     none\n" +
			"profile permissive: local mode is ON, but no port is allowed (ocfetch local allow PORT)\n"},
	}
	for _, s := range steps {
		r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, s.args...)...)
		if r.code != exitOK || r.stdout != s.stdout || r.stderr != "" {
			t.Fatalf("ocfetch %v = exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 0, stdout:\n%s", s.args, r.code, r.stdout, r.stderr, s.stdout)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"schema_version": 1, "ports": []}`+"\n"; got != want {
		t.Errorf("%s = %q; want %q", path, got, want)
	}
}

// A workspace that came with its settings.json is not trusted: local show
// says so, and that local mode is off.
func TestLocalProfileFromSettings(t *testing.T) {
	root := newUntrustedRoot(t)
	ws := wsOf(t, root)
	writeFile(t, ws.SettingsPath(), `{"schema_version": 1, "risk_profile": "permissive"}`)
	ocfetch(t, cliOptions{}, "--root", root, "local", "allow", "5173").want(t, exitOK, nil, nil)
	r := ocfetch(t, cliOptions{}, "--root", root, "local", "show", "--json")
	r.want(t, exitOK, nil, nil)
	diffKeys(t, keysOf(t, r.stdout), "file", "exists", "ports", "profile", "local_mode", "trusted")
	var got localShowJSON
	decodeStrict(t, r.stdout, &got)
	want := localShowJSON{File: ws.LocalFetchPath(), Exists: true, Ports: []uint16{5173}, Profile: "permissive", LocalMode: false, Trusted: false}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("local show --json (-want +got):\n%s", d)
	}
}

// In a workspace that is not trusted its ports do not count, so the text
// of local show says local mode is off, as --json's local_mode does, and
// not "ON" above a note that contradicts it.
func TestLocalShowUntrustedSaysOff(t *testing.T) {
	root := newUntrustedRoot(t)
	ws := wsOf(t, root)
	writeFile(t, ws.SettingsPath(), `{"schema_version": 1, "risk_profile": "permissive"}`)
	writeFile(t, ws.LocalFetchPath(), `{"schema_version": 1, "ports": [5173]}`)
	r := ocfetch(t, cliOptions{}, "--root", root, "local", "show")
	r.want(t, exitOK, []string{
		"profile permissive: local mode is OFF (the workspace is not trusted)\n",
		"note: the workspace is not trusted: its ports are ignored until `ocfetch trust --root ",
	}, nil)
	if strings.Contains(r.stdout, "local mode is ON") {
		t.Errorf("local show in an untrusted workspace says local mode is ON:\n%s", r.stdout)
	}
}

func TestLocalBadInput(t *testing.T) {
	root := newRoot(t)
	for _, args := range [][]string{
		{"local", "allow"},
		{"local", "allow", "0"},
		{"local", "allow", "65536"},
		{"local", "allow", "08080"},
		{"local", "allow", "-1"},
		{"local", "revoke", "http"},
		{"local", "open", "3000"},
	} {
		r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, args...)...)
		r.want(t, exitUsage, nil, []string{"ocfetch: ", "\nhint: "})
	}
	if _, err := os.Stat(wsOf(t, root).Dir()); !os.IsNotExist(err) {
		t.Errorf("bad local commands created %s", wsOf(t, root).Dir())
	}
}
