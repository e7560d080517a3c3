package policy_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPure is the negative dependency test STYLE.md asks for: no package
// of the policy core's graph imports net/http, crypto/tls or egress, so
// that deciding can never send a request.
//
// One exception, by name: golang.org/x/net/publicsuffix (the public-suffix
// list that refuses wildcards such as *.co.uk) imports net/http/cookiejar
// only to declare that its List satisfies cookiejar.PublicSuffixList. That
// path is allowed and nothing else: any other importer of the transport,
// an ocfetch package above all, fails the test.
func TestPure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 10 {
		t.Fatalf("go list -deps listed %d packages; want the whole graph", len(lines))
	}
	transport := func(p string) bool {
		return p == "net/http" || strings.HasPrefix(p, "net/http/") || p == "crypto/tls" ||
			p == "github.com/ocfetch/ocfetch/egress"
	}
	allowed := map[string]string{"golang.org/x/net/publicsuffix": "net/http/cookiejar"}
	for _, line := range lines {
		f := strings.Fields(line)
		pkg, imports := f[0], f[1:]
		if transport(pkg) {
			continue // judged by who imports it
		}
		for _, imp := range imports {
			if transport(imp) && allowed[pkg] != imp {
				t.Errorf("%s imports %s: the policy core must not reach the transport", pkg, imp)
			}
		}
	}
}
