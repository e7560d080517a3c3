package proxy

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"sync"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/workspace"
)

// verdict is the policy's answer for one target: admitted (err nil) with
// the context to dial under, or refused by name.
type verdict struct {
	// ctx carries egress.WithLoopbackPort in local mode.
	ctx context.Context
	// local reports that the target was admitted by local mode.
	local bool
	// decidedBy is "rule" when a saved rule decided, else "policy" (local
	// mode, the address check, an unreadable file).
	decidedBy audit.DecidedBy
	// rule is the deciding rule, as "allow example.com:443".
	rule string
	err  *refusal.Error
}

// admit decides whether the proxy may connect to t, in this order:
//
//  1. Local mode. A target whose host is one of localhost, 127.0.0.1, ::1
//     (localfetch.NormalizeLocalHost) is admitted only when the profile is
//     permissive and the port is in local_fetch.json, read on this call
//     (localfetch.AdmitLocalURL); otherwise it is refused by name and never
//     falls through to the public path. An admitted target is dialled
//     under egress.WithLoopbackPort, so the guard connects to the literal
//     loopback address on that port only.
//  2. An IP literal that is not a local-mode host must be public
//     (egress.CheckPublic): 127.0.0.2, ::ffff:127.0.0.1, 10.0.0.1 and the
//     metadata address are refused with address_not_public before any rule
//     is read. Names are checked by the guard at dial time, on the address
//     it actually connects to.
//  3. Rules. rules.json is read on this call, fail closed (an unreadable
//     or malformed file refuses with rules_invalid). A deny rule refuses
//     (denied_by_rule); no covering rule refuses (not_approved, with the
//     rules allow command as hint). The proxy cannot ask anyone, so there
//     are no one-off approvals. A local-mode target needs a rule too: the
//     proxy contract admits a target when a saved allow rule covers it AND
//     the guard admits the address.
func (s *Server) admit(ctx context.Context, t capability.Target) verdict {
	v := verdict{ctx: ctx, decidedBy: audit.ByPolicy}
	if isLocalHost(t.Host) {
		port, err := localfetch.AdmitLocalURL(localURL(t), s.ws, s.profile)
		if err != nil {
			v.err = asRefusal(err, refusal.LocalAllowlistInvalid, "local mode refused %s", t)
			return v
		}
		if s.ownPort(port) {
			// Even allowlisted, the proxy's own port would make a loop
			// that feeds every tunnel into another.
			v.err = refusal.Newf(refusal.LocalPortNotAllowed, "port %d is this proxy's own port", port).
				WithHint("remove the proxy's port from " + s.ws.LocalFetchPath())
			return v
		}
		v.ctx = egress.WithLoopbackPort(ctx, port)
		v.local = true
	} else if addr, err := netip.ParseAddr(t.Host); err == nil {
		if err := egress.CheckPublic(addr); err != nil {
			v.err = asRefusal(err, refusal.AddressNotPublic, "%s is not a public address", t.Host)
			if v.err.Hint == "" {
				v.err = v.err.WithHint("only public addresses, and localhost, 127.0.0.1 or ::1 through local mode, are reachable")
			}
			return v
		}
	}

	set, err := s.rules.load(s.ws)
	if err != nil {
		v.err = asRefusal(err, refusal.RulesInvalid, "cannot read %s", s.ws.RulesPath())
		return v
	}
	target := t.String()
	m, ok := set.Decide(capability.Network(t))
	if !ok {
		v.err = refusal.Newf(refusal.NotApproved,
			"%s is not covered by a saved rule, and the proxy accepts saved rules only", target).
			WithHint("allow it with: ocfetch rules allow " + target)
		return v
	}
	v.decidedBy = audit.ByRule
	v.rule = m.Rule.String()
	if m.Decision == rules.Deny {
		v.err = refusal.Newf(refusal.DeniedByRule, "%s is denied by the rule %q in %s", target, v.rule, s.ws.RulesPath()).
			WithHint(fmt.Sprintf("remove the rule with: ocfetch rules remove %s:%d", m.Rule.Target.Host, m.Rule.Target.Port))
		return v
	}
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

// isLocalHost reports whether the normalised host is one of the three
// local-mode hosts. "127.0.0.2" and "::ffff:127.0.0.1" are not.
func isLocalHost(host string) bool {
	switch localfetch.NormalizeLocalHost(host) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// localURL is the URL local mode judges for a target. The scheme is http
// for a tunnel as for a forwarded request: local mode admits both schemes,
// and what it rules on is the host and the explicit port.
func localURL(t capability.Target) string {
	return "http://" + t.String() + "/"
}

// asRefusal returns the refusal in err's chain, or a new one with code and
// the formatted (secret-free) message wrapping err.
func asRefusal(err error, code refusal.Code, format string, args ...any) *refusal.Error {
	if r, ok := refusal.As(err); ok {
		return r
	}
	return refusal.Newf(code, format, args...).Wrap(err)
}

// ruleMemo spares the parse of rules.json when the file reads exactly as it
// did for the set it remembers. It is not a cache in time: the file is
// still read on every request, and a decision is always made from the set
// that the bytes read for this request parse to. Parsing is the larger part
// of the proxy's CPU per tunnel (strict JSON, every host normalised), and
// rules.json rarely changes between two tunnels.
type ruleMemo struct {
	mu   sync.Mutex
	data []byte
	set  *rules.Set
}

// load returns the rule set of ws's rules.json as rules.Load would for the
// bytes read now. Whenever the bytes differ from the remembered ones, or the
// file cannot be read as a small regular file (missing, a symlink to
// nothing, too large, a FIFO: rules.Load decides what that means), it is
// rules.Load that reads and parses. Its result is remembered only when the
// file read the same before and after it, so the set is the parse of the
// bytes it is remembered for. (A file that changed and changed back within
// that window could pair the bytes with the set of the transient content;
// whoever can write rules.json can write that content for good, so this
// grants nothing.)
func (m *ruleMemo) load(ws workspace.Workspace) (*rules.Set, error) {
	path := ws.RulesPath()
	before, err := workspace.ReadSmallFile(path)
	if err != nil {
		return rules.Load(ws)
	}
	m.mu.Lock()
	if m.set != nil && bytes.Equal(before, m.data) {
		set := m.set
		m.mu.Unlock()
		return set, nil
	}
	m.mu.Unlock()
	set, err := rules.Load(ws)
	if err != nil {
		return nil, err
	}
	if after, err := workspace.ReadSmallFile(path); err == nil && bytes.Equal(before, after) {
		m.mu.Lock()
		m.data, m.set = before, set
		m.mu.Unlock()
	}
	return set, nil
}
