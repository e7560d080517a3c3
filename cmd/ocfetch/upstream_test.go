package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
)

// TestGetUpstreamProxy: --upstream-proxy (or settings.json's
// upstream_proxy) sends a public call through the proxy as CONNECT to the
// checked address; a name resolving to a private address never reaches
// it; --upstream-proxy none goes direct.
func TestGetUpstreamProxy(t *testing.T) {
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "hello via "+r.Host+" sni "+r.TLS.ServerName)
	}), nil)
	proxy := testnet.StartConnectProxy(t, pub.Server.Listener.Addr().String())
	o := cliOptions{egress: func(eo *egress.Options) {
		eo.Resolver = testnet.Resolver{"example.com": {publicAddr}, "intranet.example.com": {netip.MustParseAddr("192.168.1.10")}}
		eo.RootCAs = pub.RootCAs
		eo.Dial = pub.Dial // a direct dial reaches the loopback server too, never the internet
	}}
	root := newRoot(t)
	ocfetch(t, o, "--root", root, "rules", "allow", "example.com").want(t, exitOK, nil, nil)

	r := ocfetch(t, o, "--root", root, "get", "--upstream-proxy", proxy.URL(), "https://example.com/private?q=1")
	r.want(t, exitOK, []string{"HTTP 200 OK", "hello via example.com sni example.com"}, nil)
	want := []string{"CONNECT 93.184.216.34:443"}
	if got, _ := proxy.Seen(); !cmp.Equal(got, want) {
		t.Fatalf("the proxy saw %v; want %v", got, want)
	}

	r = ocfetch(t, o, "--root", root, "get", "--yes", "--upstream-proxy", proxy.URL(), "https://intranet.example.com/")
	r.want(t, exitRefused, nil, []string{"address_not_public", "192.168.1.10", "192.168.0.0/16"})
	if got, _ := proxy.Seen(); !cmp.Equal(got, want) {
		t.Fatalf("the proxy saw %v; want only %v", got, want)
	}

	writeFile(t, filepath.Join(root, ".oc_chat", "settings.json"), `{"schema_version": 1, "upstream_proxy": "`+proxy.URL()+`"}`)
	ocfetch(t, o, "--root", root, "get", "https://example.com/").want(t, exitOK, []string{"hello via example.com"}, nil)
	want = append(want, "CONNECT 93.184.216.34:443")
	if got, _ := proxy.Seen(); !cmp.Equal(got, want) {
		t.Fatalf("with settings.json the proxy saw %v; want %v", got, want)
	}
	ocfetch(t, o, "--root", root, "get", "--upstream-proxy", "none", "https://example.com/").want(t, exitOK, []string{"hello via example.com"}, nil)
	if got, _ := proxy.Seen(); !cmp.Equal(got, want) {
		t.Fatalf("with --upstream-proxy none the proxy saw %v; want %v", got, want)
	}
	if got := pub.Dials.List(); !cmp.Equal(got, []string{"93.184.216.34:443"}) {
		t.Errorf("direct dials %v; want the one of --upstream-proxy none", got)
	}
}

func TestEgressFlagErrors(t *testing.T) {
	root := newRoot(t)
	dir := t.TempDir()
	badCA := filepath.Join(dir, "corp-ca.pem")
	writeFile(t, badCA, "not a certificate\n")
	auth := filepath.Join(dir, "auth")
	writeFile(t, auth, "alice:pw\n")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"bad CA file", []string{"get", "--ca-file", badCA, "https://example.com/"}, exitUsage, []string{"--ca-file", "invalid CA file", "corp-ca.pem", "no PEM certificate"}},
		{"missing CA file", []string{"get", "--ca-file", filepath.Join(dir, "nope.pem"), "https://example.com/"}, exitUsage, []string{"--ca-file", "nope.pem"}},
		{"mcp bad CA file", []string{"mcp", "--ca-file", badCA}, exitUsage, []string{"--ca-file", "corp-ca.pem"}},
		{"proxy URL without port", []string{"get", "--upstream-proxy", "http://proxy.corp", "https://example.com/"}, exitUsage, []string{"--upstream-proxy", "port is missing", "hint: write --upstream-proxy http://HOST:PORT"}},
		{"proxy URL with credentials", []string{"get", "--upstream-proxy", "http://a:secret@proxy.corp:3128", "https://example.com/"}, exitUsage, []string{"--upstream-proxy-auth"}},
		{"auth without proxy", []string{"get", "--upstream-proxy-auth", auth, "https://example.com/"}, exitUsage, []string{"ocfetch: --upstream-proxy-auth needs --upstream-proxy URL: its credentials are sent only to the proxy that flag names", "upstream_proxy_auth_file"}},
		{"auth with proxy none", []string{"get", "--upstream-proxy", "none", "--upstream-proxy-auth", auth, "https://example.com/"}, exitUsage, []string{"--upstream-proxy-auth needs --upstream-proxy URL"}},
		{"mcp auth without proxy", []string{"mcp", "--upstream-proxy-auth", auth}, exitUsage, []string{"--upstream-proxy-auth needs --upstream-proxy URL"}},
		{"auth file missing", []string{"get", "--upstream-proxy", "http://127.0.0.1:9", "--upstream-proxy-auth", filepath.Join(dir, "none"), "https://example.com/"}, exitUsage, []string{"--upstream-proxy-auth", "none"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, tc.args...)...)
			r.want(t, tc.code, nil, tc.stderr)
			if tc.name == "proxy URL with credentials" && strings.Contains(r.stderr, "secret") {
				t.Errorf("stderr %q repeats the password", r.stderr)
			}
		})
	}

	bad := newRoot(t)
	writeFile(t, filepath.Join(bad, ".oc_chat", "settings.json"), `{"schema_version": 1, "upstream_proxy": "socks5://proxy.corp:1080"}`)
	r := ocfetch(t, cliOptions{}, "--root", bad, "get", "https://example.com/")
	r.want(t, exitRefused, nil, []string{"settings_invalid", filepath.Join(bad, ".oc_chat", "settings.json"), "upstream_proxy", `hint: write "upstream_proxy": "http://HOST:PORT"`})
}

// TestGetJSONBodyTruncated: a body cut by --max-bytes says so in --json
// (body_truncated), apart from the content window's truncated.
func TestGetJSONBodyTruncated(t *testing.T) {
	s := newSite(t)
	root := localRoot(t, s)
	r := ocfetch(t, cliOptions{}, "--root", root, "--profile", "permissive", "get", "--json", "--max-bytes", "10", s.url("/long"))
	r.want(t, exitOK, nil, nil)
	var got getSuccess
	decodeStrict(t, r.stdout, &got)
	if !got.BodyTruncated || got.Truncated || got.Bytes != 10 || got.Content != "0123456789" {
		t.Errorf("get --json --max-bytes 10 = %+v; want body_truncated true, truncated false, 10 bytes", got)
	}
	r = ocfetch(t, cliOptions{}, "--root", root, "--profile", "permissive", "get", "--max-bytes", "10", s.url("/long"))
	r.want(t, exitOK, []string{"[body cut at 10 bytes"}, nil)
}

// An upstream_proxy shipped in an untrusted workspace's settings.json is a
// grant: the call is refused workspace_untrusted naming settings.json, and
// the shipped proxy sees nothing; --upstream-proxy (the user's own) or
// trusting the workspace lets it through.
func TestGetUntrustedUpstreamProxy(t *testing.T) {
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello via "+r.Host)
	}), nil)
	proxy := testnet.StartConnectProxy(t, pub.Server.Listener.Addr().String())
	o := cliOptions{egress: func(eo *egress.Options) {
		eo.Resolver = testnet.Resolver{"example.com": {publicAddr}}
		eo.RootCAs = pub.RootCAs
		eo.Dial = pub.Dial
	}}
	root := newUntrustedRoot(t)
	settings := filepath.Join(root, ".oc_chat", "settings.json")
	writeFile(t, settings, `{"schema_version": 1, "upstream_proxy": "`+proxy.URL()+`"}`)
	ocfetch(t, o, "rules", "allow", "--user", "example.com").want(t, exitOK, nil, nil)
	ocfetch(t, o, "--root", root, "get", "https://example.com/").
		want(t, exitRefused, nil, []string{"ocfetch: workspace_untrusted: workspace " + root + " is not trusted, so \"upstream_proxy ", settings})
	if got, _ := proxy.Seen(); len(got) != 0 {
		t.Fatalf("the shipped proxy saw %v; want nothing", got)
	}
	ocfetch(t, o, "--root", root, "explain", "https://example.com/").
		want(t, exitOK, []string{"decision:   deny", "reason:     workspace_untrusted", "file:       " + settings}, nil)
	ocfetch(t, o, "--root", root, "get", "--upstream-proxy", "none", "https://example.com/").want(t, exitOK, []string{"hello via example.com"}, nil)
	ocfetch(t, o, "--root", root, "trust", "--yes").want(t, exitOK, nil, nil)
	ocfetch(t, o, "--root", root, "get", "https://example.com/").want(t, exitOK, []string{"hello via example.com"}, nil)
	if got, _ := proxy.Seen(); len(got) != 1 {
		t.Errorf("trusted: the proxy saw %v; want one CONNECT", got)
	}
}

// TestUpstreamCredentialsOnlyForTheirProxy: --upstream-proxy-auth goes
// with --upstream-proxy only — beside a proxy named in settings.json it is
// a usage error and that proxy sees nothing; the proxy settings.json names
// gets the credentials of the upstream_proxy_auth_file the same file
// names, in a trusted workspace only.
func TestUpstreamCredentialsOnlyForTheirProxy(t *testing.T) {
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello via "+r.Host)
	}), nil)
	o := cliOptions{egress: func(eo *egress.Options) {
		eo.Resolver = testnet.Resolver{"example.com": {publicAddr}}
		eo.RootCAs = pub.RootCAs
		eo.Dial = pub.Dial
	}}
	dir := t.TempDir()
	userAuth := filepath.Join(dir, "user-auth")
	writeFile(t, userAuth, "alice:users-own-secret\n")
	wsAuth := filepath.Join(dir, "ws-auth")
	writeFile(t, wsAuth, "bob:pw\n")
	quoted, _ := json.Marshal(wsAuth)

	shipped := testnet.StartConnectProxy(t, pub.Server.Listener.Addr().String())
	shipped.WantAuth = "Basic " + base64.StdEncoding.EncodeToString([]byte("bob:pw"))
	root := newUntrustedRoot(t)
	settings := filepath.Join(root, ".oc_chat", "settings.json")
	writeFile(t, settings, `{"schema_version": 1, "upstream_proxy": "`+shipped.URL()+`", "upstream_proxy_auth_file": `+string(quoted)+`}`)
	ocfetch(t, o, "rules", "allow", "--user", "example.com").want(t, exitOK, nil, nil)

	for _, args := range [][]string{
		{"get", "--upstream-proxy-auth", userAuth, "https://example.com/"},
		{"mcp", "--upstream-proxy-auth", userAuth},
	} {
		r := ocfetch(t, o, append([]string{"--root", root}, args...)...)
		r.want(t, exitUsage, nil, []string{"--upstream-proxy-auth needs --upstream-proxy URL"})
		if strings.Contains(r.stderr, "users-own-secret") {
			t.Errorf("%v: stderr repeats the password: %q", args, r.stderr)
		}
	}
	// Untrusted: the shipped proxy and its credentials file are a grant.
	ocfetch(t, o, "--root", root, "get", "https://example.com/").
		want(t, exitRefused, nil, []string{"workspace_untrusted", settings})
	if got, _ := shipped.Seen(); len(got) != 0 {
		t.Fatalf("untrusted: the shipped proxy saw %v; want nothing", got)
	}
	ocfetch(t, o, "--root", root, "trust", "--yes").want(t, exitOK, nil, nil)
	ocfetch(t, o, "--root", root, "get", "https://example.com/").want(t, exitOK, []string{"hello via example.com"}, nil)
	if _, auths := shipped.Seen(); !cmp.Equal(auths, []string{shipped.WantAuth}) {
		t.Errorf("trusted: the proxy of settings.json got credentials %v; want only those of its upstream_proxy_auth_file", auths)
	}

	// The user's own proxy gets the user's own credentials.
	own := testnet.StartConnectProxy(t, pub.Server.Listener.Addr().String())
	ocfetch(t, o, "--root", root, "get", "--upstream-proxy", own.URL(), "--upstream-proxy-auth", userAuth, "https://example.com/").
		want(t, exitOK, []string{"hello via example.com"}, nil)
	if _, auths := own.Seen(); !cmp.Equal(auths, []string{"Basic " + base64.StdEncoding.EncodeToString([]byte("alice:users-own-secret"))}) {
		t.Errorf("--upstream-proxy got credentials %v; want those of --upstream-proxy-auth", auths)
	}
	if _, auths := shipped.Seen(); len(auths) != 1 {
		t.Errorf("the proxy of settings.json saw %d requests; want still 1", len(auths))
	}

	// A credentials file settings.json names that cannot be read is
	// settings_invalid naming the file; nothing is sent.
	writeFile(t, settings, `{"schema_version": 1, "upstream_proxy": "`+shipped.URL()+`", "upstream_proxy_auth_file": `+strings.Replace(string(quoted), "ws-auth", "missing", 1)+`}`)
	ocfetch(t, o, "--root", root, "get", "https://example.com/").
		want(t, exitRefused, nil, []string{"settings_invalid", settings, "upstream_proxy_auth_file"})
	if _, auths := shipped.Seen(); len(auths) != 1 {
		t.Errorf("with a missing credentials file the proxy saw %d requests; want still 1", len(auths))
	}
}

// TestGetUpstreamProxyExclude: settings.json's upstream_proxy_exclude (and
// --upstream-proxy-exclude with --upstream-proxy) sends the hosts it names
// directly and every other through the proxy; an excluded name resolving
// to a private address is still refused by the guard; a bad entry is
// settings_invalid naming the file, or a usage error naming the flag.
func TestGetUpstreamProxyExclude(t *testing.T) {
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "hello via "+r.Host)
	}), nil)
	proxy := testnet.StartConnectProxy(t, pub.Server.Listener.Addr().String())
	wwwAddr := netip.MustParseAddr("93.184.216.35")
	o := cliOptions{egress: func(eo *egress.Options) {
		eo.Resolver = testnet.Resolver{
			"example.com":          {publicAddr},
			"www.example.com":      {wwwAddr},
			"intranet.example.com": {netip.MustParseAddr("192.168.1.10")},
		}
		eo.RootCAs = pub.RootCAs
		eo.Dial = pub.Dial // a direct dial reaches the loopback server too, never the internet
	}}
	root := newRoot(t)
	for _, h := range []string{"example.com", "*.example.com"} {
		ocfetch(t, o, "--root", root, "rules", "allow", h).want(t, exitOK, nil, nil)
	}
	settings := filepath.Join(root, ".oc_chat", "settings.json")
	writeFile(t, settings, `{"schema_version": 1, "upstream_proxy": "`+proxy.URL()+`", "upstream_proxy_exclude": ["www.example.com", "intranet.example.com"]}`)

	ocfetch(t, o, "--root", root, "get", "https://www.example.com/").want(t, exitOK, []string{"hello via www.example.com"}, nil)
	ocfetch(t, o, "--root", root, "get", "https://example.com/").want(t, exitOK, []string{"hello via example.com"}, nil)
	ocfetch(t, o, "--root", root, "get", "https://intranet.example.com/").want(t, exitRefused, nil, []string{"address_not_public", "192.168.1.10"})
	if got, want := func() []string { s, _ := proxy.Seen(); return s }(), []string{"CONNECT 93.184.216.34:443"}; !cmp.Equal(got, want) {
		t.Errorf("the proxy saw %v; want only example.com's %v", got, want)
	}
	if got, want := pub.Dials.List(), []string{"93.184.216.35:443"}; !cmp.Equal(got, want) {
		t.Errorf("direct dials %v; want only www.example.com's %v", got, want)
	}

	// The flag goes with the flag's proxy.
	ocfetch(t, o, "--root", root, "get", "--upstream-proxy", proxy.URL(), "--upstream-proxy-exclude", "example.com,*.corp.example", "https://example.com/").
		want(t, exitOK, []string{"hello via example.com"}, nil)
	ocfetch(t, o, "--root", root, "get", "--upstream-proxy", proxy.URL(), "https://www.example.com/").want(t, exitOK, nil, nil)
	if got, want := pub.Dials.List(), []string{"93.184.216.35:443", "93.184.216.34:443"}; !cmp.Equal(got, want) {
		t.Errorf("direct dials %v; want %v (the flag's exclusion; settings' not applied to the flag's proxy)", got, want)
	}
	if got, _ := proxy.Seen(); len(got) != 2 {
		t.Errorf("the proxy saw %v; want www.example.com through the flag's proxy too", got)
	}

	for _, tc := range []struct {
		name     string
		settings string
		args     []string
		code     int
		stderr   []string
	}{
		{"a port in settings", `["www.example.com:443"]`, nil, exitRefused, []string{"settings_invalid", settings, "upstream_proxy_exclude", "without a port"}},
		{"a leading dot in settings", `[".example.com"]`, nil, exitRefused, []string{"settings_invalid", "write *.example.com"}},
		{"not a list", `"www.example.com"`, nil, exitRefused, []string{"settings_invalid", "want a list of hosts"}},
		{"a bad flag", `[]`, []string{"--upstream-proxy", proxy.URL(), "--upstream-proxy-exclude", "*"}, exitUsage, []string{"--upstream-proxy-exclude", "every host"}},
		{"the flag without --upstream-proxy", `[]`, []string{"--upstream-proxy-exclude", "www.example.com"}, exitUsage, []string{"--upstream-proxy-exclude needs --upstream-proxy URL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, settings, `{"schema_version": 1, "upstream_proxy": "`+proxy.URL()+`", "upstream_proxy_exclude": `+tc.settings+`}`)
			args := append(append([]string{"--root", root, "get"}, tc.args...), "https://www.example.com/")
			ocfetch(t, o, args...).want(t, tc.code, nil, tc.stderr)
		})
	}
}
