package main

import (
	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/scope"
)

// egressFlags are the flags of get and mcp that shape the way out: the
// operator's upstream proxy, its credentials, and extra CAs. None is ever
// taken from the environment (HTTPS_PROXY and friends are ignored).
type egressFlags struct {
	upstreamProxy string
	upstreamAuth  string
	caFile        string
}

func addEgressFlags(cmd *cobra.Command, f *egressFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.upstreamProxy, "upstream-proxy", "", "send public connections through the HTTP proxy `URL` (http://HOST:PORT) as CONNECT to the checked address; 'none' ignores settings.json's upstream_proxy; never taken from HTTPS_PROXY")
	fl.StringVar(&f.upstreamAuth, "upstream-proxy-auth", "", "read the upstream proxy's credentials from `FILE` (one line user:pass)")
	fl.StringVar(&f.caFile, "ca-file", "", "also trust the certificate authorities in the PEM `FILE` (a TLS-inspecting proxy's CA), on top of the system roots")
}

// applyEgress sets o's upstream proxy (the scope's: --upstream-proxy,
// else settings.json's, see scope.Open), its credentials
// (--upstream-proxy-auth) and the root CAs (--ca-file). A bad flag is a
// usage error naming the flag.
func applyEgress(sc *scope.Scope, f egressFlags, o *egress.Options) error {
	if sc != nil && sc.Upstream != nil {
		up := *sc.Upstream
		o.Upstream = &up
	}
	if f.upstreamAuth != "" {
		if o.Upstream == nil {
			return usageErrorf("name the proxy with --upstream-proxy URL (or upstream_proxy in settings.json)",
				"--upstream-proxy-auth needs an upstream proxy")
		}
		user, pass, err := egress.ReadProxyAuthFile(f.upstreamAuth)
		if err != nil {
			return usageErrorf("write the proxy's user:pass on one line of a small regular file", "--upstream-proxy-auth: %v", err)
		}
		o.Upstream.Username, o.Upstream.Password = user, pass
	}
	if f.caFile != "" {
		pool, err := egress.LoadCAFile(f.caFile)
		if err != nil {
			return usageErrorf("give a PEM file of CERTIFICATE blocks", "--ca-file: %v", err)
		}
		o.RootCAs = pool
	}
	return nil
}
