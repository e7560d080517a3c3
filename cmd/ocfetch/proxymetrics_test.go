package main

import "testing"

// TestProxyMetricsFlagLoopbackOnly: --metrics listens on loopback only,
// as --listen does.
func TestProxyMetricsFlagLoopbackOnly(t *testing.T) {
	root := newRoot(t)
	for _, addr := range []string{"0.0.0.0:9464", "192.168.1.2:9464", ":9464", "nonsense"} {
		ocfetch(t, cliOptions{}, "--root", root, "proxy", "--listen", "127.0.0.1:0", "--metrics", addr).want(t, exitUsage, nil, []string{"--metrics"})
	}
}
