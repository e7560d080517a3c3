package main

import (
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/scope"
)

// egressFlags are the flags of get and mcp that shape the way out: the
// operator's upstream proxy, its credentials, and extra CAs. None is ever
// taken from the environment (HTTPS_PROXY and friends are ignored).
type egressFlags struct {
	upstreamProxy   string
	upstreamAuth    string
	upstreamExclude []string
	caFile          string
}

func addEgressFlags(cmd *cobra.Command, f *egressFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.upstreamProxy, "upstream-proxy", "", "send public connections through the HTTP proxy `URL` (http://HOST:PORT, or https://HOST:PORT for TLS to the proxy) as CONNECT to the checked address; 'none' ignores settings.json's upstream_proxy; never taken from HTTPS_PROXY")
	fl.StringVar(&f.upstreamAuth, "upstream-proxy-auth", "", "read the credentials of the --upstream-proxy from `FILE` (one line user:pass); only with --upstream-proxy (settings.json's proxy takes its own upstream_proxy_auth_file)")
	fl.StringArrayVar(&f.upstreamExclude, "upstream-proxy-exclude", nil, "dial `HOSTS` directly instead of through the --upstream-proxy (comma-separated, repeatable; a host, IP literal or *.domain; after the same rules and guard); only with --upstream-proxy (settings.json's proxy takes its own upstream_proxy_exclude)")
	fl.StringVar(&f.caFile, "ca-file", "", "also trust the certificate authorities in the PEM `FILE` (a TLS-inspecting proxy's CA), on top of the system roots")
}

// egressFor is the way out of get, search and proxy: timeout and log, the
// scope's upstream proxy and the egress flags ([applyEgress]), then the
// tests' hook (app.egressOptions).
func (a *app) egressFor(sc *scope.Scope, f egressFlags, timeout time.Duration, log *slog.Logger) (*egress.Options, error) {
	o := &egress.Options{Timeout: timeout, Logger: log}
	if err := applyEgress(sc, f, o); err != nil {
		return nil, err
	}
	if a.egressOptions != nil {
		a.egressOptions(o)
	}
	return o, nil
}

// applyEgress sets o's upstream proxy (the scope's: --upstream-proxy,
// else settings.json's with its upstream_proxy_auth_file, see scope.Open),
// the credentials of --upstream-proxy (--upstream-proxy-auth, and only for
// that flag's proxy: a usage error without it, so the flag never reaches a
// proxy a workspace names, which a later git pull may change) and the root
// CAs (--ca-file). A bad flag is a usage error naming the flag.
func applyEgress(sc *scope.Scope, f egressFlags, o *egress.Options) error {
	if f.upstreamAuth != "" && (f.upstreamProxy == "" || strings.EqualFold(f.upstreamProxy, scope.NoUpstream)) {
		return usageErrorf("name the proxy these credentials are for with --upstream-proxy URL; for a proxy named in settings.json, name the credentials file there too (\"upstream_proxy_auth_file\": \"/abs/path\")",
			"--upstream-proxy-auth needs --upstream-proxy URL: its credentials are sent only to the proxy that flag names")
	}
	if len(f.upstreamExclude) > 0 && (f.upstreamProxy == "" || strings.EqualFold(f.upstreamProxy, scope.NoUpstream)) {
		return usageErrorf("name the proxy these hosts bypass with --upstream-proxy URL; for a proxy named in settings.json, list them there (\"upstream_proxy_exclude\": [\"*.corp.example\"])",
			"--upstream-proxy-exclude needs --upstream-proxy URL")
	}
	if sc != nil && sc.Upstream != nil {
		up := *sc.Upstream
		o.Upstream = &up
	}
	if len(f.upstreamExclude) > 0 && o.Upstream != nil && sc.UpstreamFrom == scope.FromFlag {
		var entries []string
		for _, v := range f.upstreamExclude {
			entries = append(entries, strings.Split(v, ",")...)
		}
		ex, err := egress.ParseUpstreamExclude(entries)
		if err != nil {
			return usageErrorf("write hosts or *.domain, comma-separated, without ports: --upstream-proxy-exclude '*.corp.example,intranet.example.com'", "--upstream-proxy-exclude: %v", err)
		}
		o.Upstream.Exclude = ex
	}
	if f.upstreamAuth != "" && o.Upstream != nil && sc.UpstreamFrom == scope.FromFlag {
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
