package shellrun

import (
	"net/netip"
	"net/url"
	"os"
	"strings"

	"github.com/ocfetch/ocfetch/proxy"
	"github.com/ocfetch/ocfetch/sandbox"
)

// ProxyEnv lists the variables [Env] sets, in both cases: HTTP_PROXY and
// HTTPS_PROXY to the proxy's http:// URL, ALL_PROXY to its socks5h:// URL.
var ProxyEnv = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"}

// Env returns environ without any *_PROXY variable (in any case), plus
// HTTP_PROXY and HTTPS_PROXY set to http://USER:PASS@ADDR, ALL_PROXY set to
// socks5h://USER:PASS@ADDR (the proxy resolves names), each in both cases,
// and NO_PROXY/no_proxy set empty, so no host bypasses the proxy. With nil
// creds the URLs carry no userinfo.
func Env(environ []string, addr netip.AddrPort, creds *proxy.Credentials) []string {
	out := make([]string, 0, len(environ)+len(ProxyEnv)+2)
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(strings.ToUpper(k), "_PROXY") {
			continue
		}
		out = append(out, kv)
	}
	u := func(scheme string) string {
		pu := url.URL{Scheme: scheme, Host: addr.String()}
		if creds != nil {
			pu.User = creds.Userinfo()
		}
		return pu.String()
	}
	httpURL, socksURL := u("http"), u("socks5h")
	for _, k := range ProxyEnv {
		v := httpURL
		if strings.EqualFold(k, "ALL_PROXY") {
			v = socksURL
		}
		out = append(out, k+"="+v)
	}
	return append(out, "NO_PROXY=", "no_proxy=")
}

// envFunc is the sandboxed command's environment: this process's, with
// [Env] pointing it at the proxy the sandbox listens for.
func envFunc(creds *proxy.Credentials) sandbox.EnvFunc {
	return func(p netip.AddrPort) []string { return Env(os.Environ(), p, creds) }
}
