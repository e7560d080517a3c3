package explain

import (
	"context"
	"encoding/json"
	"net/netip"

	"github.com/google/uuid"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/scope"
)

// Explanation is what [For] found, and the --json object of `ocfetch
// explain`. Decision is "allow", "deny", "ask" or "refused" (the URL
// itself was refused before any decision: its reason says why). Its
// prose (Message, Hint, Local.Message) is as the refusals word it, not
// yet made safe to show: the printer does that.
type Explanation struct {
	URL       string             `json:"url,omitempty"` // the origin only, never a path or query
	Front     string             `json:"front"`
	Decision  string             `json:"decision"`
	Layer     string             `json:"layer,omitempty"`
	Rule      string             `json:"rule,omitempty"`
	File      string             `json:"file,omitempty"`
	Reason    refusal.Code       `json:"reason,omitempty"`
	Message   string             `json:"message,omitempty"`
	Hint      string             `json:"hint,omitempty"`
	Target    *capability.Target `json:"target,omitempty"`
	Scheme    string             `json:"scheme_rule"`
	Local     *LocalVerdict      `json:"local,omitempty"`
	Address   *AddressVerdict    `json:"address,omitempty"`
	DecidedBy string             `json:"decided_by,omitempty"`
	// Trusted says whether the user trusts the workspace (its grants
	// count only then); Layers are the files Decide read, in order.
	Trusted *bool        `json:"trusted,omitempty"`
	Layers  []LayerState `json:"layers,omitempty"`
	// Trace is what the decision consulted, in order (policy.Decision.Trace).
	Trace []TraceStep `json:"trace,omitempty"`
	// OpenWeb is set when the open-web rule ("allow *:443", rules allow
	// --public-https) decided: what it admits and what still guards it.
	OpenWeb string `json:"open_web,omitempty"`
}

// TraceStep is one step of the decision's trace (a policy.Step).
type TraceStep struct {
	Layer string `json:"layer"`
	Check string `json:"check"`
	File  string `json:"file,omitempty"`
	Said  string `json:"said"`
}

// LocalVerdict is local mode's part: whether the host is one of the three,
// what the allowlist said, on which port.
type LocalVerdict struct {
	Admitted bool         `json:"admitted"`
	Port     uint16       `json:"port,omitempty"`
	File     string       `json:"file"`
	Reason   refusal.Code `json:"reason,omitempty"`
	Message  string       `json:"message,omitempty"`
}

// AddressVerdict is the address check of an IP literal.
type AddressVerdict struct {
	IP     string `json:"ip"`
	Public bool   `json:"public"`
	Range  string `json:"range,omitempty"`
}

// URLHint is the hint of a URL [For] refuses as invalid: the explain
// command's own usage, not the Fetch tool's JSON arguments.
const URLHint = "give the URL as ocfetch get takes it, e.g. https://example.com/ or http://127.0.0.1:3000/; run 'ocfetch explain --help' for usage"

// For is what policy.Decide says for rawURL asked by front under sc,
// rawURL parsed exactly as get parses it (the Fetch tool's PrepareCall),
// so its verdict is get's; with the states of sc's layers
// (Explanation.Layers, Trusted). It sends nothing and resolves no name:
// local mode's verdict and the address check are what Decide's trace
// found, not asked again.
func For(ctx context.Context, sc *scope.Scope, front policy.Front, rawURL string) Explanation {
	e := decide(ctx, sc, front, rawURL)
	e.Trusted, e.Layers = layerStates(sc.Workspace, sc.Layers)
	return e
}

// decide is For's decision, without the layers' states.
func decide(ctx context.Context, sc *scope.Scope, front policy.Front, rawURL string) Explanation {
	e := Explanation{Front: front.String(), Scheme: schemeRule(front)}
	args, err := json.Marshal(map[string]string{"url": rawURL})
	if err != nil {
		e.Decision, e.Reason, e.Message = "refused", refusal.InvalidArguments, "the URL cannot be encoded"
		return e
	}
	tl := fetch.NewFetch(nil, nil)
	req, _, err := tl.PrepareCall(ctx, uuid.New(), string(args))
	if err != nil {
		r, ok := refusal.As(err)
		if !ok {
			r = refusal.New(refusal.InternalError, "internal error")
		}
		e.Decision, e.Reason, e.Message, e.Hint = "refused", r.Code, r.Message, r.Hint
		if r.Code == refusal.InvalidArguments {
			// The tool's hint speaks of its JSON arguments (what a model
			// sends); here the URL was an argument of this command.
			e.Hint = URLHint
		}
		return e
	}
	need := req.Requirements[0]
	o := need.Origin()
	e.URL = o.String() + "/"
	e.Target = &o.Target
	q := sc.Args(front, proxyOrigin(front, o))
	q.Trace = true
	d := policy.Decide(ctx, q)
	e.Decision, e.Rule, e.File, e.DecidedBy = d.Result.String(), d.Rule, d.File, string(d.DecidedBy)
	e.Layer = d.Layer.String()
	if r := d.Refusal; r != nil {
		e.Reason, e.Message, e.Hint = r.Code, r.Message, r.Hint
	}
	if d.Result == policy.Allow && d.Rule == rules.PublicHTTPSRule().String() {
		e.OpenWeb = "the open-web rule (ocfetch rules allow --public-https): every public host over https, without asking; " +
			"the address it resolves to is still checked when get dials (private, loopback and special-purpose addresses refused), and a deny rule would win"
	}
	// explain is a printer of the decision's trace: local mode's verdict
	// and the address check are what Decide found, not asked again.
	for _, st := range d.Trace {
		e.Trace = append(e.Trace, TraceStep{Layer: st.Layer.String(), Check: st.Check, File: st.File, Said: st.Said})
		switch st.Check {
		case policy.CheckLocal:
			lv := &LocalVerdict{File: st.File, Admitted: st.Refusal == nil}
			if st.Refusal == nil {
				lv.Port = st.Port
			} else {
				lv.Reason, lv.Message = st.Refusal.Code, st.Refusal.Message
			}
			e.Local = lv
		case policy.CheckAddress:
			addr, _ := netip.ParseAddr(o.Target.Host())
			e.Address = &AddressVerdict{IP: addr.String(), Public: st.Range == "", Range: st.Range}
		}
	}
	return e
}

// proxyOrigin is the origin the proxy decides on for the request a client
// sends it for o (proxy's parsedRequest.origin): https goes through a
// CONNECT tunnel, which has no scheme; an http URL is forwarded; and the
// request always names the port (a CONNECT writes it, http's is 80). Any
// other front decides on o as parsed.
func proxyOrigin(front policy.Front, o capability.Origin) capability.Origin {
	if front != policy.FrontProxy {
		return o
	}
	o.PortWritten = true
	if o.Scheme == "https" {
		o.Scheme = ""
	}
	return o
}

// schemeRule is the scheme rule front decides under, in words.
func schemeRule(front policy.Front) string {
	if front == policy.FrontProxy {
		return "the proxy forwards what a saved rule covers, http on port 80 included; a target no rule covers is asked by ocfetch run on a terminal, and refused (not_approved) by ocfetch proxy and by run without a terminal"
	}
	return "the Fetch tool reaches public hosts over https only; http only in local mode"
}
