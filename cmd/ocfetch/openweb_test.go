package main

import (
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
)

// TestOpenWeb: after `rules allow --public-https`, a public host is
// fetched without --yes and without a prompt; private and metadata
// literals, a name that resolves to a private address (the injected
// resolver answers; nothing dials it) and loopback stay refused; a deny
// rule wins; explain names the rule; a managed policy with
// allow_public_https false makes it count for nothing and refuses to
// write it.
func TestOpenWeb(t *testing.T) {
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("open web hello from " + r.Host))
	}), &testnet.Options{Only: netip.AddrPortFrom(publicAddr, 443)})
	o := cliOptions{egress: func(eo *egress.Options) {
		eo.Resolver = testnet.Resolver{
			"docs.example.com":  {publicAddr},
			"tracker.example":   {publicAddr},
			"intranet.example":  {netip.MustParseAddr("10.1.2.3")},
			"metadata.example":  {netip.MustParseAddr("169.254.169.254")},
			"rebound.example":   {netip.MustParseAddr("127.0.0.1")},
			"mixed.example.com": {publicAddr, netip.MustParseAddr("192.168.1.1")},
		}
		eo.RootCAs = pub.RootCAs
		eo.Dial = pub.Dial
	}}
	root := newRoot(t)
	ocfetch(t, o, "--root", root, "get", "https://docs.example.com/").want(t, exitRefused, nil, []string{"not_approved"})

	ocfetch(t, o, "--root", root, "rules", "allow", "--public-https").want(t, exitOK, []string{"added: allow *:443", "undo with: ocfetch rules remove --public-https"}, nil)
	ocfetch(t, o, "--root", root, "rules", "deny", "tracker.example").want(t, exitOK, nil, nil)
	ocfetch(t, o, "--root", root, "rules", "list").want(t, exitOK, []string{"allow     *"}, nil)

	// Not interactive, no --yes: nobody could be asked, and nobody is.
	ocfetch(t, o, "--root", root, "get", "https://docs.example.com/").want(t, exitOK, []string{"open web hello from docs.example.com"}, nil)
	ocfetch(t, o, "--root", root, "explain", "https://docs.example.com/").want(t, exitOK, []string{"decision:   allow", `rule:       allow *:443`, "open web:"}, nil)

	for _, tc := range []struct{ url, reason string }{
		{"https://10.0.0.1/", "address_not_public"},
		{"https://169.254.169.254/latest/meta-data/", "address_not_public"},
		{"https://intranet.example/", "address_not_public"},
		{"https://metadata.example/", "address_not_public"},
		{"https://rebound.example/", "address_not_public"},
		{"https://127.0.0.2/", "address_not_public"},
		{"https://localhost/", "local_profile_not_permissive"},
		{"https://[::1]/", "local_profile_not_permissive"},
		{"http://docs.example.com/", "https_required"},
		{"https://docs.example.com:8443/", "not_approved"},
		{"https://tracker.example/", "denied_by_rule"},
	} {
		r := ocfetch(t, o, "--root", root, "get", tc.url)
		r.want(t, exitRefused, nil, []string{tc.reason})
	}
	// A name with a public and a private address is refused whole.
	ocfetch(t, o, "--root", root, "get", "https://mixed.example.com/").want(t, exitRefused, nil, []string{"address_not_public"})
	for _, a := range pub.Dials.List() {
		if a != netip.AddrPortFrom(publicAddr, 443).String() {
			t.Errorf("dialed %s; want only the public address", a)
		}
	}

	// The managed policy forbids it: the rule counts for nothing, and
	// writing it is refused.
	l := testLayers(t)
	if err := os.MkdirAll(filepath.Dir(l.managed.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, l.managed.Path, `{"allow_public_https": false}`)
	r := ocfetch(t, o, "--root", root, "get", "https://docs.example.com/")
	r.want(t, exitRefused, nil, []string{"not_approved", "allow_public_https: false"})
	ocfetch(t, o, "--root", root, "rules", "allow", "--public-https", "--user").want(t, exitRefused, nil, []string{"managed_policy_forbids", "allow_public_https: false"})

	os.Remove(l.managed.Path)
	ocfetch(t, o, "--root", root, "rules", "remove", "--public-https").want(t, exitOK, []string{"removed: *:443"}, nil)
	ocfetch(t, o, "--root", root, "get", "https://docs.example.com/").want(t, exitRefused, nil, []string{"not_approved"})
	r = ocfetch(t, o, "--root", root, "rules", "allow", "*")
	r.want(t, exitUsage, nil, []string{"--public-https"})
	if strings.Contains(r.stdout, "added") {
		t.Errorf("rules allow '*' saved something: %s", r.stdout)
	}
}
