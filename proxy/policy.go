package proxy

import (
	"context"
	"net/netip"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
)

// verdict is the policy's answer for one target: admitted (err nil) with
// the context to dial under, or refused by name.
type verdict struct {
	// ctx carries the parsed target (egress.WithTarget) and, in local
	// mode, egress.WithLoopback.
	ctx context.Context
	// local reports that the target was admitted by local mode.
	local bool
	// decidedBy is the audit line's decided_by (policy.Decide's, or
	// ByPolicy for what the proxy itself refused).
	decidedBy audit.DecidedBy
	// rule is the deciding rule, as "allow example.com:443".
	rule string
	// trustedBy is the decision's policy.Decision.TrustedBy (audit
	// trusted_by).
	trustedBy string
	// file is the policy file that decided, or for a target no rule
	// covers, the workspace's rules.json, where an allow rule would go.
	file string
	err  *refusal.Error
}

// admit decides whether the proxy may connect to t: policy.Decide as the
// proxy front (FrontProxy: any scheme a rule covers, port 80 included),
// within the exchange's call that ctx carries (every file checked on this
// request, once: see [Server.admitTarget]). Without
// Options.Ask the proxy never asks anyone: Ask is refused as not_approved
// with the rules allow command as hint, so a target is admitted only when
// a saved allow rule covers it — local-mode targets included — and the
// egress guard admits the dialed address. With it, the user is asked
// (Server.ask) and the answer decides. A local-mode target is dialled under
// egress.WithLoopback, so the guard connects to the loopback address
// written on the admitted port only, and never to the proxy's own port.
func (s *Server) admit(ctx context.Context, o capability.Origin) verdict {
	v := verdict{ctx: ctx, decidedBy: audit.ByPolicy}
	// The profile is settings.json's as it is now (unless a flag set it):
	// the proxy outlives an edit of the file.
	args, err := s.scope.ArgsContext(ctx, policy.FrontProxy, o)
	if err != nil {
		r, ok := refusal.As(err)
		if !ok {
			path := s.scope.Workspace.SettingsPath()
			r = refusal.Newf(refusal.SettingsInvalid, "settings file %s cannot be used", path).
				WithHint("make " + path + " a regular file holding valid settings, or delete it to use standard").Wrap(err)
		}
		v.err = r
		return v
	}
	args.Logger = s.decideLog
	d := policy.Decide(ctx, args)
	v.trustedBy = d.TrustedBy
	switch d.Result {
	case policy.Deny:
		v.decidedBy, v.rule, v.err, v.file = d.DecidedBy, d.Rule, d.Refusal, d.File
		if v.err.Code == refusal.AddressNotPublic && v.err.Hint == "" {
			v.err = v.err.WithHint("only public addresses, and localhost, 127.0.0.1 or ::1 through local mode, are reachable")
		}
		return v
	case policy.Ask:
		v.file = s.scope.Workspace.RulesPath()
		if s.asker == nil {
			v.err = refusal.Newf(refusal.NotApproved,
				"%s is not covered by a saved rule, and the proxy accepts saved rules only", o.Target).
				WithHint(d.Refusal.Hint)
			return v
		}
		by, rule, err := s.ask(ctx, o, d, args)
		if err != nil {
			v.decidedBy, v.err = by, err
			return v
		}
		d.DecidedBy, d.Rule = by, rule
	}
	if d.LoopbackPort != 0 {
		if s.ownPort(d.LoopbackPort) {
			// Even allowlisted, the proxy's own port would make a loop
			// that feeds every tunnel into another.
			v.err = refusal.Newf(refusal.LocalPortNotAllowed, "port %d is this proxy's own port", d.LoopbackPort).
				WithHint("remove the proxy's port from " + s.scope.Workspace.LocalFetchPath())
			return v
		}
		v.ctx = egress.WithLoopback(ctx, d.Target)
		v.local = true
	}
	// The guard dials the target as parsed (its host normalised by the
	// parse): no second normalisation; every check of the guard still runs.
	target := o.Target
	v.ctx = egress.WithTarget(v.ctx, &target)
	v.decidedBy, v.rule = d.DecidedBy, d.Rule
	return v
}

// ownPort reports whether port is the port of one of the server's
// listeners (all of which are loopback).
func (s *Server) ownPort(port uint16) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ln := range s.listeners {
		if ap, err := netip.ParseAddrPort(ln.Addr().String()); err == nil && ap.Port() == port {
			return true
		}
	}
	return false
}
