package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/workspace"
)

// egressFlags are the flags of get and mcp that shape the way out: the
// operator's upstream proxy, its credentials, and extra CAs. None is ever
// taken from the environment (HTTPS_PROXY and friends are ignored).
type egressFlags struct {
	upstreamProxy string
	upstreamAuth  string
	caFile        string
}

// noUpstream is the --upstream-proxy value that turns off a proxy named in
// settings.json.
const noUpstream = "none"

func addEgressFlags(cmd *cobra.Command, f *egressFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.upstreamProxy, "upstream-proxy", "", "send public connections through the HTTP proxy `URL` (http://HOST:PORT, or https://HOST:PORT for TLS to the proxy) as CONNECT to the checked address; 'none' ignores settings.json's upstream_proxy; never taken from HTTPS_PROXY")
	fl.StringVar(&f.upstreamAuth, "upstream-proxy-auth", "", "read the upstream proxy's credentials from `FILE` (one line user:pass)")
	fl.StringVar(&f.caFile, "ca-file", "", "also trust the certificate authorities in the PEM `FILE` (a TLS-inspecting proxy's CA), on top of the system roots")
}

// applyEgress sets o's upstream proxy and root CAs from the flags: the
// proxy is --upstream-proxy, else the upstream_proxy of ws's settings.json
// (ws nil: no settings are read); --upstream-proxy-auth adds credentials,
// --ca-file the CAs. A bad flag is a usage error naming the flag; a bad
// settings value is settings_invalid naming the file. It returns the
// settings.json proxy in use ("" when none, or the flag's): a workspace
// grant that policy.Decide counts only in a trusted workspace
// (policy.Args.WorkspaceUpstream).
func applyEgress(ws *workspace.Workspace, f egressFlags, o *egress.Options) (fromWorkspace string, err error) {
	err = applyEgressTo(ws, f, o)
	if err == nil && f.upstreamProxy == "" && o.Upstream != nil {
		fromWorkspace = o.Upstream.Addr
	}
	return fromWorkspace, err
}

func applyEgressTo(ws *workspace.Workspace, f egressFlags, o *egress.Options) error {
	raw, from := f.upstreamProxy, "--upstream-proxy"
	if raw == "" && ws != nil {
		s, err := risk.ReadSettings(*ws)
		if err != nil {
			return classify(err)
		}
		raw, from = s.UpstreamProxy, "settings.json"
	}
	if strings.EqualFold(raw, noUpstream) && from == "--upstream-proxy" {
		raw = ""
	}
	if raw != "" {
		up, err := egress.ParseUpstreamProxy(raw)
		if err != nil {
			if from == "settings.json" {
				return classify(refusal.Newf(refusal.SettingsInvalid, "settings file %s: upstream_proxy: %v", ws.SettingsPath(), err).
					WithHint(`write "upstream_proxy": "http://HOST:PORT", or remove the key`))
			}
			return usageErrorf("write --upstream-proxy http://HOST:PORT (or https://HOST:PORT)", "--upstream-proxy: %v", err)
		}
		o.Upstream = up
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
