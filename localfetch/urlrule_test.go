package localfetch

// The seed's URL-level rule (seed 000's admit_local_url, is_local_target
// and normalize_local_host), composed here from the production pieces so
// that the seed's matrix keeps testing the whole rule: the parse-level
// checks the front end does once (url.Parse, the scheme, the credentials,
// capability.NormalizeHost, capability.ParsePort — fetch.PrepareCall in
// production) and then [Admit], the layer policy.Decide consults. No
// production code takes a URL string here.

import (
	"errors"
	"net/url"
	"strings"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/workspace"
)

// NormalizeLocalHost returns host as the dialer will see it — lowercased,
// one trailing dot stripped, brackets removed, an IPv6 address compressed,
// a non-ASCII name mapped through IDNA UTS #46 ([capability.NormalizeHost])
// — or "" when host cannot be normalised (empty, a zone identifier, a
// non-canonical IPv4 form such as "127.1", an empty label as in
// "localhost..", a forbidden character).
//
// "[0:0:0:0:0:0:0:1]" and "::1" are the same host, as are "LOCALHOST." and
// "localhost", and "１２７.０.０.１" and "127.0.0.1". The IPv4-mapped
// "::ffff:127.0.0.1" normalises to itself and so is deliberately NOT
// "127.0.0.1": it is not one of the three named hosts.
func NormalizeLocalHost(host string) string {
	h, err := capability.NormalizeHost(host)
	if err != nil || strings.HasSuffix(h, ".") {
		// capability.NormalizeHost strips one trailing dot only, so
		// "localhost.." came back as "localhost." — an empty last label
		// that is no host at all. Refused here whatever capability does.
		return ""
	}
	return h
}

// isLocalScheme reports whether scheme (as url.Parse leaves it: lowercased)
// is admitted by local mode.
func isLocalScheme(scheme string) bool { return scheme == "http" || scheme == "https" }

// IsLocalTarget reports whether rawURL is a candidate for local mode: an
// http or https URL whose host normalises ([NormalizeLocalHost]) to
// "localhost", "127.0.0.1" or "::1". It says nothing about admission:
// a candidate is either admitted or refused by name by [AdmitLocalURL],
// and never handed to the public path to be refused again with a misleading
// message. "http://１２７.０.０.１:3000/" is a candidate (the mapped host is
// what the dialer uses); "http://127.0.0.2/" and "http://[::ffff:127.0.0.1]/"
// are not.
func IsLocalTarget(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || !isLocalScheme(u.Scheme) {
		return false
	}
	return isLocalHost(NormalizeLocalHost(u.Hostname()))
}

// AdmitLocalURL applies the local-mode admission rule to rawURL and returns
// the admitted port. Call it once per request and once per redirect hop.
//
// The rule, in order; the first failure is returned as an *refusal.Error:
//
//  1. profile is [risk.Permissive] — else local_profile_not_permissive,
//     naming the profile;
//  2. the URL parses and its scheme is http or https — else
//     invalid_arguments or scheme_not_allowed, naming the scheme;
//  3. the host normalises to localhost, 127.0.0.1 or ::1 — else
//     invalid_host;
//  4. the URL carries no user information — else credentials_in_url (the
//     credentials are never echoed);
//  5. the port is explicit and not empty ("http://localhost:/" has none) —
//     else local_port_missing;
//  6. the port is a decimal 1–65535 without leading zeros — else
//     invalid_arguments;
//  7. the port is in the allowlist of ws, read on this call
//     ([ReadAllowedPorts]: no caching, so an edit takes effect at once and
//     a deletion closes the door at once) — else local_port_not_allowed
//     naming the port and the file; an unusable allowlist returns its own
//     local_allowlist_missing or local_allowlist_invalid refusal.
//
// Messages name the profile, scheme, host, port or file only, never the
// URL's path or query.
func AdmitLocalURL(rawURL string, ws workspace.Workspace, profile risk.Profile) (uint16, error) {
	if err := checkProfile(ws, profile); err != nil {
		return 0, err
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		// err is a *url.Error quoting the whole URL: never shown.
		return 0, refusal.New(refusal.InvalidArguments, "the URL cannot be parsed").
			WithHint("pass an absolute URL such as http://localhost:3000/")
	}
	if !isLocalScheme(u.Scheme) {
		return 0, refusal.Newf(refusal.SchemeNotAllowed,
			"scheme %q is not allowed for local fetch; want http or https", safetext.Short(u.Scheme)).
			WithHint("use http:// or https://")
	}
	host := NormalizeLocalHost(u.Hostname())
	if _, herr := capability.NormalizeHost(u.Hostname()); errors.Is(herr, capability.ErrLookAlike) {
		return 0, refusal.New(refusal.InvalidHost, herr.Error()).
			WithHint("write the host as localhost, 127.0.0.1 or [::1]")
	}
	if !isLocalHost(host) {
		return 0, notLocal(host, u.Hostname())
	}
	if u.User != nil {
		return 0, refusal.Newf(refusal.CredentialsInURL,
			"the URL for %s carries credentials; local fetch refuses them", host).
			WithHint("remove the user:password@ part of the URL")
	}
	portStr := u.Port()
	if portStr == "" {
		return 0, portMissing(u.Scheme, capability.MustTarget(host, capability.DefaultPort(u.Scheme)))
	}
	port, err := capability.ParsePort(portStr)
	if err != nil {
		return 0, refusal.Newf(refusal.InvalidArguments,
			"port %q of %s is not a decimal number 1–65535 without leading zeros", safetext.Short(portStr), host).
			WithHint("write the port as the server listens on it, e.g. :3000")
	}
	return Admit(capability.Origin{Scheme: u.Scheme, Target: capability.MustTarget(host, port), PortWritten: true}, ws, profile)
}
