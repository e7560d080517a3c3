package main

import (
	"strings"
	"testing"
)

// TestExplainProxyAsk: explain --proxy for a target no rule covers says
// exactly what happens in each mode (run on a terminal asks; the proxy and
// run without a terminal refuse), not a bare "ask" the proxy never does;
// explain's --help has examples.
func TestExplainProxyAsk(t *testing.T) {
	root := newRoot(t)
	r := ocfetch(t, cliOptions{}, "--root", root, "explain", "--proxy", "http://new.example/")
	r.want(t, exitOK, []string{"decision:   ask: ocfetch run on a terminal asks you; ocfetch proxy, and run without a terminal or with --no-ask, refuse it (not_approved)"}, nil)
	r = ocfetch(t, cliOptions{}, "--root", root, "explain", "http://new.example/")
	if strings.Contains(r.stdout, "ocfetch run on a terminal") {
		t.Errorf("explain without --proxy speaks of run:\n%s", r.stdout)
	}
	for _, args := range [][]string{{"explain", "--help"}, {"profile", "show", "--help"}, {"completion", "--help"}} {
		r := ocfetch(t, cliOptions{}, args...)
		r.want(t, exitOK, []string{"Examples:\n  ocfetch "}, nil)
	}
}
