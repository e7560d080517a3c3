package main

import "testing"

// TestWatchesChanges: only the commands that serve until stopped keep
// change notification of the policy files; every one-shot command (and a
// command line naming none) checks them with stats.
func TestWatchesChanges(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"mcp"}, true},
		{[]string{"--root", "/w", "proxy", "--listen", "127.0.0.1:0"}, true},
		{[]string{"-v", "run", "--", "curl", "https://example.com/"}, true},
		{[]string{"get", "https://example.com/"}, false},
		{[]string{"--root", "mcp", "get", "https://example.com/"}, false}, // "mcp" is --root's value
		{[]string{"explain", "https://example.com/"}, false},
		{[]string{"search", "proxy"}, false},
		{[]string{"demo"}, false},
		{[]string{"version"}, false},
		{nil, false},
	} {
		if got := watchesChanges(tc.args); got != tc.want {
			t.Errorf("watchesChanges(%q) = %v; want %v", tc.args, got, tc.want)
		}
	}
}
