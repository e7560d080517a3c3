package policy_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPure is the negative dependency test STYLE.md asks for: the policy
// core imports no net/http, directly or through any package it imports, so
// that deciding can never send a request.
func TestPure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages; want the whole graph", len(deps))
	}
	for _, d := range deps {
		switch {
		case d == "net/http", strings.HasPrefix(d, "net/http/"), d == "github.com/ocfetch/ocfetch/egress", d == "crypto/tls":
			t.Errorf("policy depends on %s; the policy core must not reach the transport", d)
		}
	}
}
