package main

import (
	"net"
	"strings"
	"testing"
)

// TestListenerBusy: mcp --http and proxy --listen on a port that is taken
// name the address and the fix, not the package that failed.
func TestListenerBusy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	root := newRoot(t)
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"mcp", "--http", addr}, "--http"},
		{[]string{"proxy", "--listen", addr}, "--listen"},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, tc.args...)...)
			r.want(t, exitInternal, nil, []string{"ocfetch: cannot listen on " + addr + ": the address is already in use",
				"hint: stop the other server, or pick another port, or " + tc.flag + " 127.0.0.1:0 for a free one"})
			for _, line := range strings.Split(r.stderr, "\n") {
				if !strings.HasPrefix(line, "ocfetch: ") && !strings.HasPrefix(line, "hint: ") {
					continue // other lines (the proxy's credentials notice) are not the error
				}
				for _, pkg := range []string{"mcpserver:", "proxy:", "bind:"} {
					if strings.Contains(line, pkg) {
						t.Errorf("error line %q names %q; want the address and the fix only", line, pkg)
					}
				}
			}
		})
	}
}
