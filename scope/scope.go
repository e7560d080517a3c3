// Package scope is what one workspace's calls are decided under, built
// once by [Open]: the workspace, the profile and where it came from, the
// upstream proxy and where it came from, and the layers around it. It owns
// "a flag beats settings.json". Every front end (get, explain, mcp, proxy,
// run, and any new one) starts from a Scope and hands it to the broker or
// the proxy, which ask policy.Decide with [Scope.Args]: nothing of it is
// copied field by field.
//
// The decision order is stated once, in docs/DESIGN.md.
package scope

import (
	"context"
	"strings"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/workspace"
)

// Source says where a setting of the scope came from.
type Source string

// Sources.
const (
	// FromDefault: neither a flag nor settings.json set it.
	FromDefault Source = "default"
	// FromFlag: the user gave it for this run (--profile,
	// --upstream-proxy, an embedder's option). It is the user's own
	// choice, not a workspace grant.
	FromFlag Source = "flag"
	// FromSettings: the workspace's settings.json. A grant of the
	// workspace: it counts only in a trusted workspace (policy.Decide).
	FromSettings Source = "settings"
)

// NoUpstream is the upstream flag's value that turns off the proxy named
// in settings.json.
const NoUpstream = "none"

// Flags are the user's choices for this run; each beats settings.json.
// The zero value reads everything from the workspace.
type Flags struct {
	// Profile is --profile ("" when unset).
	Profile string
	// Upstream is --upstream-proxy ("" when unset; [NoUpstream] turns
	// settings.json's off).
	Upstream string
	// NoSettingsUpstream: settings.json's upstream_proxy is not read (the
	// MCP server reads it from --root only).
	NoSettingsUpstream bool
}

// Scope is one workspace's calls' frame. It is a value built by [Open];
// every file it names is still read by policy.Decide on every call.
type Scope struct {
	Workspace workspace.Workspace
	// Profile is the resolved risk profile, and ProfileFrom where it came
	// from.
	Profile     risk.Profile
	ProfileFrom Source
	// Upstream is the operator's HTTP proxy public connections go through
	// (nil: direct), and UpstreamFrom where it came from.
	Upstream     *egress.UpstreamProxy
	UpstreamFrom Source
	// UpstreamAuthFile is the file settings.json's upstream_proxy_auth_file
	// names, from which Upstream's credentials were read ("" when none):
	// a secret, which `ocfetch run` hides from its command
	// (shellrun.DenyRead).
	UpstreamAuthFile string
	// Layers locate the managed policy, the trust store and the user's
	// rules (nil: the platform's places).
	Layers *policy.Layers
}

// FlagError is an error of a flag's value (not of a file): a front end
// reports it as a usage error naming Flag.
type FlagError struct {
	Flag string
	Err  error
}

func (e *FlagError) Error() string { return e.Flag + ": " + e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// Open builds the scope of ws under flags and layers: the profile is
// flags.Profile, else settings.json's, else standard; the upstream proxy
// is flags.Upstream ("none": none), else settings.json's upstream_proxy
// (unless flags.NoSettingsUpstream) with its upstream_proxy_auth_file and
// upstream_proxy_exclude, else none. A bad flag is a
// *[FlagError]; a bad settings.json is settings_invalid naming the file.
func Open(ws workspace.Workspace, flags Flags, layers *policy.Layers) (*Scope, error) {
	return OpenContext(context.Background(), ws, flags, layers)
}

// OpenContext is [Open] within the call ctx carries
// (securefile.WithCall, as broker.Call and policy.Decide use it):
// settings.json is checked once for the call, its directory's check
// shared with the workspace's other files.
func OpenContext(ctx context.Context, ws workspace.Workspace, flags Flags, layers *policy.Layers) (*Scope, error) {
	s := &Scope{Workspace: ws, Layers: layers, ProfileFrom: FromDefault, UpstreamFrom: FromDefault}
	var settings risk.Settings
	var read1, found bool
	read := func() (risk.Settings, error) {
		if !read1 {
			st, ok, err := risk.ReadSettingsContext(ctx, ws)
			if err != nil {
				return st, err
			}
			settings, found, read1 = st, ok, true
		}
		return settings, nil
	}
	if flags.Profile != "" {
		p, err := risk.Parse(flags.Profile)
		if err != nil {
			return nil, &FlagError{Flag: "--profile", Err: err}
		}
		s.Profile, s.ProfileFrom = p, FromFlag
	} else {
		st, err := read()
		if err != nil {
			return nil, err
		}
		s.Profile = st.Profile
		if found { // settings.json set it ("standard" when it names none)
			s.ProfileFrom = FromSettings
		}
	}
	if flags.Upstream != "" || flags.NoSettingsUpstream {
		up, err := FlagUpstream(flags.Upstream)
		if err != nil {
			return nil, err
		}
		if up != nil {
			s.Upstream, s.UpstreamFrom = up, FromFlag
		}
		return s, nil
	}
	st, err := read()
	if err != nil {
		return nil, err
	}
	if st.UpstreamProxy != "" {
		up, err := egress.ParseUpstreamProxy(st.UpstreamProxy)
		if err != nil {
			return nil, refusal.Newf(refusal.SettingsInvalid, "settings file %s: upstream_proxy: %v", ws.SettingsPath(), err).
				WithHint(`write "upstream_proxy": "http://HOST:PORT", or remove the key`)
		}
		// Credentials go only to the proxy named beside them: settings'
		// upstream_proxy_auth_file to its upstream_proxy, never a flag's.
		if st.UpstreamProxyAuthFile != "" {
			user, pass, err := egress.ReadProxyAuthFile(st.UpstreamProxyAuthFile)
			if err != nil {
				return nil, refusal.Newf(refusal.SettingsInvalid, "settings file %s: upstream_proxy_auth_file: %v", ws.SettingsPath(), err).
					WithHint("write the proxy's user:pass on one line of a small regular file, or remove the key")
			}
			up.Username, up.Password = user, pass
			s.UpstreamAuthFile = st.UpstreamProxyAuthFile
		}
		// Exclusions too go only with the proxy named beside them.
		if st.UpstreamProxyExclude != nil {
			ex, err := egress.ParseUpstreamExclude(st.UpstreamProxyExclude)
			if err != nil {
				return nil, refusal.Newf(refusal.SettingsInvalid, "settings file %s: upstream_proxy_exclude: %v", ws.SettingsPath(), err).
					WithHint(`write "upstream_proxy_exclude": ["*.corp.example", "intranet.example.com"] (hosts or *.domain, no ports), or remove the key`)
			}
			up.Exclude = ex
		}
		s.Upstream, s.UpstreamFrom = up, FromSettings
	}
	return s, nil
}

// FlagUpstream parses the upstream flag's value: nil for "" and
// [NoUpstream], a *[FlagError] for a bad URL. It is [Open]'s, for a front
// end that has no workspace yet (the MCP server without --root).
func FlagUpstream(raw string) (*egress.UpstreamProxy, error) {
	if raw == "" || strings.EqualFold(raw, NoUpstream) {
		return nil, nil
	}
	up, err := egress.ParseUpstreamProxy(raw)
	if err != nil {
		return nil, &FlagError{Flag: "--upstream-proxy", Err: err}
	}
	return up, nil
}

// WorkspaceUpstream is settings.json's proxy when the calls go through
// it: a workspace grant (policy.Args.WorkspaceUpstream); "" otherwise.
func (s *Scope) WorkspaceUpstream() string {
	if s.Upstream == nil || s.UpstreamFrom != FromSettings {
		return ""
	}
	return s.Upstream.Addr
}

// Args is the question to policy.Decide for origin o asked by front.
func (s *Scope) Args(front policy.Front, o capability.Origin) policy.Args {
	a := policy.Args{Front: front, Origin: o, Workspace: s.Workspace, Profile: s.Profile,
		ProfileExplicit: s.ProfileFrom == FromFlag, WorkspaceUpstream: s.WorkspaceUpstream(), Layers: s.Layers}
	if s.ProfileFrom == FromSettings {
		a.ProfileFile = s.Workspace.SettingsPath()
	}
	return a
}

// ArgsContext is [Scope.Args] for a call made now, within the call ctx
// carries (securefile.WithCall): a profile that came from settings.json,
// or the default for want of one, is settings.json's as it is now,
// checked once for the call, so that on a front end that outlives an edit
// (the proxy of `ocfetch proxy` and `ocfetch run`) the edit takes effect on
// the next call, as seed 000 asks of every file a call depends on. A
// flag's profile, or one an embedder set with no source, is kept. A
// settings.json malformed now is the settings_invalid refusal naming it.
func (s *Scope) ArgsContext(ctx context.Context, front policy.Front, o capability.Origin) (policy.Args, error) {
	a := s.Args(front, o)
	if s.ProfileFrom != FromSettings && s.ProfileFrom != FromDefault {
		return a, nil
	}
	st, found, err := risk.ReadSettingsContext(ctx, s.Workspace)
	if err != nil {
		return a, err
	}
	a.Profile, a.ProfileFile = st.Profile, ""
	if found {
		a.ProfileFile = s.Workspace.SettingsPath()
	}
	return a, nil
}

// Trusted reports whether the user trusts the workspace now, as the
// decision sees it (the store and the managed policy are read on this
// call: policy.Layers.DecidingTrustStore).
func (s *Scope) Trusted() (bool, error) {
	st, err := s.Layers.DecidingTrustStore(context.Background())
	if err != nil {
		return false, err
	}
	return st.Trusted(s.Workspace.Root)
}
