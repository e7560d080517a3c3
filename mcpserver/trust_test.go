package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/internal/testws"
)

// The instructions say whether the --root workspace is trusted, and what
// that means for the model; without --root they state the rule.
func TestInstructionsSayWhetherTrusted(t *testing.T) {
	untrusted := testws.New(t, testws.Spec{})
	trusted := trustedWS(t, testws.Spec{})
	for _, tc := range []struct {
		name string
		root string
		want []string
	}{
		{"untrusted", untrusted.Root, []string{"has not trusted this workspace", "workspace_untrusted", "ocfetch trust --root " + untrusted.Root, "deny rules and profile strict always apply"}},
		{"trusted", trusted.Root, []string{"The user trusts this workspace"}},
		{"client roots", "", []string{"Whether the user trusts that workspace is checked on every call", "workspace_untrusted"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := newServer(&Options{Root: tc.root})
			if err != nil {
				t.Fatal(err)
			}
			got := s.instructions()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("instructions %q do not contain %q", got, w)
				}
			}
		})
	}
	// Revoked: the next server says so (nothing cached).
	if _, err := testLayers.Trust.Revoke(context.Background(), trusted.Root); err != nil {
		t.Fatal(err)
	}
	s, err := newServer(&Options{Root: trusted.Root})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.instructions(); !strings.Contains(got, "has not trusted this workspace") {
		t.Errorf("after revoke: %q", got)
	}
}
