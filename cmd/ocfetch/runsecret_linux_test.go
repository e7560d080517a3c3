//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// TestRunHidesUpstreamProxyCredentials: the upstream proxy's credentials
// file — --upstream-proxy-auth's, or settings.json's
// upstream_proxy_auth_file — is a secret the run's proxy presents
// upstream; the command cannot read it, even where the file is the
// user's own and sits in a readable place (the README puts it in the
// configuration directory, which the sandbox keeps read-only but
// readable).
func TestRunHidesUpstreamProxyCredentials(t *testing.T) {
	const secret = "corp-user:Secr3t-Corp-Passw0rd"
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root, file string) []string
	}{
		{"flag", func(t *testing.T, root, file string) []string {
			return []string{"--upstream-proxy", "http://127.0.0.1:9", "--upstream-proxy-auth", file}
		}},
		{"settings", func(t *testing.T, root, file string) []string {
			settings := `{"schema_version": 1, "upstream_proxy": "http://127.0.0.1:9", "upstream_proxy_auth_file": "` + file + `"}`
			if err := os.MkdirAll(filepath.Join(root, ".oc_chat"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, ".oc_chat", "settings.json"), []byte(settings), 0o644); err != nil {
				t.Fatal(err)
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := newRoot(t)
			if err := testws.GiveToSandboxUser(root); err != nil {
				t.Fatal(err)
			}
			// The user's own file, 0600, outside every hidden directory.
			dir := filepath.Join(root, "corp")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "proxy-auth")
			if err := os.WriteFile(file, []byte(secret+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if os.Geteuid() == 0 {
				for _, p := range []string{dir, file} {
					if err := os.Chown(p, testws.SandboxUser, testws.SandboxUser); err != nil {
						t.Fatal(err)
					}
				}
			}
			args := append([]string{"--root", root, "run"}, tc.setup(t, root, file)...)
			r := ocfetch(t, cliOptions{}, append(args, "--", "sh", "-c", `cat "$0"; echo end`, file)...)
			if strings.Contains(r.stderr, "sandbox_unavailable") {
				t.Skipf("no sandbox here: %s", r.stderr)
			}
			r.want(t, exitOK, []string{"end"}, nil)
			if strings.Contains(r.stdout, "Secr3t") {
				t.Errorf("the command read the upstream proxy's credentials:\n%s", r.stdout)
			}
		})
	}
}
