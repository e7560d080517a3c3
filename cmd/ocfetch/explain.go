package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

func newExplainCmd(a *app) *cobra.Command {
	var asJSON, proxy bool
	cmd := &cobra.Command{
		Use:   "explain URL",
		Short: "Say what the policy decides for a URL, and why, sending nothing",
		Long: `Explain prints what "ocfetch get URL" would be told in this workspace,
without sending a packet or resolving a name: the decision (allow, deny or
ask), the layer, rule and file that made it, local mode's verdict with its
file and port, the scheme rule, and for an IP literal the address check
naming the IANA range. --proxy explains the proxy's decision instead (it
forwards http to a rule on port 80; "ask" there means: ocfetch run on a
terminal asks you, ocfetch proxy and run without a terminal refuse
not_approved). Exit 0 whatever the decision; --json prints one object.`,
		Example: `  ocfetch explain https://example.com/docs
  ocfetch explain --json https://api.example.com/ | jq .decision
  ocfetch explain --proxy http://registry.example:80/
  ocfetch --profile permissive explain http://127.0.0.1:3000/`,
		Args: exactArgs("URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExplain(cmd.Context(), a, args[0], asJSON, proxy)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&proxy, "proxy", false, "explain the proxy's decision (ocfetch run / ocfetch proxy)")
	return cmd
}

// explanation is the --json object of explain. Decision is "allow",
// "deny", "ask" or "refused" (the URL itself was refused before any
// decision: its reason says why).
type explanation struct {
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
	Local     *localVerdict      `json:"local,omitempty"`
	Address   *addressVerdict    `json:"address,omitempty"`
	DecidedBy string             `json:"decided_by,omitempty"`
	// Trusted says whether the user trusts the workspace (its grants
	// count only then); Layers are the files Decide read, in order.
	Trusted *bool        `json:"trusted,omitempty"`
	Layers  []layerState `json:"layers,omitempty"`
	// Trace is what the decision consulted, in order (policy.Decision.Trace).
	Trace []traceStep `json:"trace,omitempty"`
	// OpenWeb is set when the open-web rule ("allow *:443", rules allow
	// --public-https) decided: what it admits and what still guards it.
	OpenWeb string `json:"open_web,omitempty"`
}

// traceStep is one step of the decision's trace.
type traceStep struct {
	Layer string `json:"layer"`
	Check string `json:"check"`
	File  string `json:"file,omitempty"`
	Said  string `json:"said"`
}

// layerState is one layer as explain shows it: its file and what it holds.
type layerState struct {
	Layer string `json:"layer"`
	File  string `json:"file"`
	// State: "absent", "present", "invalid: …", "trusted", "untrusted".
	State string `json:"state"`
	// Grants (the workspace layer) is what its files grant, as `ocfetch
	// trust` lists it; counted only while the workspace is trusted.
	Grants []trust.GrantLine `json:"grants,omitempty"`
}

// localVerdict is local mode's part: whether the host is one of the three,
// what the allowlist said, on which port.
type localVerdict struct {
	Admitted bool         `json:"admitted"`
	Port     uint16       `json:"port,omitempty"`
	File     string       `json:"file"`
	Reason   refusal.Code `json:"reason,omitempty"`
	Message  string       `json:"message,omitempty"`
}

// addressVerdict is the address check of an IP literal.
type addressVerdict struct {
	IP     string `json:"ip"`
	Public bool   `json:"public"`
	Range  string `json:"range,omitempty"`
}

func runExplain(ctx context.Context, a *app, rawURL string, asJSON, proxy bool) error {
	// The URL is checked as get checks it, so that both say the same.
	if strings.TrimSpace(rawURL) == "" {
		return usageErrorf("run 'ocfetch explain --help' for usage", "missing URL")
	}
	if !utf8.ValidString(rawURL) {
		return usageErrorf("run 'ocfetch explain --help' for usage", "the URL is not valid UTF-8")
	}
	front := policy.FrontFetchTool
	if proxy {
		front = policy.FrontProxy
	}
	// get would connect through settings.json's upstream_proxy (a
	// workspace grant that Decide judges too); the proxy does not.
	sc, err := a.scope("", !proxy)
	if err != nil {
		return err
	}
	e := explain(ctx, sc, front, rawURL)
	e.Trusted, e.Layers = layerStates(sc.Workspace, sc.Layers)
	if asJSON {
		// Prose is made safe to show as the text form makes it; paths stay
		// exact (they name files a script may open).
		e.Message, e.Hint = safetext.Line(e.Message), safetext.Line(e.Hint)
		if e.Local != nil {
			e.Local.Message = safetext.Line(e.Local.Message)
		}
		return writeJSON(a.stdout, e)
	}
	printExplanation(a.stdout, e)
	return nil
}

// layerStates reads the layers' files as Decide reads them, one state per
// layer of policy.Order that has files: the managed policy, the workspace
// (trusted or not, and what its files grant: [trust.Grants.Lines], the lines
// `ocfetch trust` lists), the user's rules.
func layerStates(ws workspace.Workspace, l *policy.Layers) (*bool, []layerState) {
	var out []layerState
	var trusted *bool
	for _, spec := range policy.Order() {
		files := spec.Files(ws, l)
		st := layerState{Layer: spec.Layer.String(), State: "absent"}
		if len(files) > 0 {
			st.File = files[0]
		}
		switch spec.Layer {
		case policy.LayerManaged:
			if p, err := l.LoadManaged(); err != nil {
				st.State = "invalid: every call is refused"
			} else if p.Present() {
				st.State = fmt.Sprintf("present: max_profile %s, managed_rules_only %v, allow_once %v, require_sandbox %v, allow_public_https %v",
					p.MaxProfile, p.ManagedRulesOnly, !p.NoAllowOnce, p.RequireSandbox, !p.NoPublicHTTPS)
			}
		case policy.LayerWorkspace:
			st.File = ws.Dir()
			trusted, st.State, st.Grants = workspaceState(ws, l, spec)
		case policy.LayerUser:
			if loc, err := l.UserRules(); err == nil {
				if set, err := rules.LoadAt(loc); err != nil {
					st.State = "invalid: every call is refused"
				} else if n := set.Len(); n > 0 {
					st.State = fmt.Sprintf("present: %d rules, in any workspace", n)
				}
			}
		default:
			continue // no files (the built-in layer)
		}
		out = append(out, st)
	}
	return trusted, out
}

// workspaceState is the workspace layer's state: trusted or not, and what
// its files grant (the grants of spec, the layer's description, when they
// cannot be read).
func workspaceState(ws workspace.Workspace, l *policy.Layers, spec policy.LayerSpec) (*bool, string, []trust.GrantLine) {
	var grants []trust.GrantLine
	ignored := "its grants (" + spec.Grants + ") are ignored; its restrictions apply"
	if g, err := trust.ReadGrants(ws); err == nil {
		grants, _ = g.Lines()
		ignored = "its files grant nothing; its restrictions apply"
		if len(grants) > 0 {
			var what []string
			for _, gl := range grants {
				what = append(what, gl.What+" from "+gl.File)
			}
			ignored = "its grants (" + strings.Join(what, "; ") + ") are ignored; its restrictions apply"
		}
	}
	s, err := l.TrustStore()
	if err != nil {
		return nil, "untrusted: the trust store cannot be opened", grants
	}
	st, err := s.Status(ws.Root)
	if err != nil {
		return nil, "untrusted: the trust store " + s.Path() + " cannot be read", grants
	}
	ok := st.Trusted()
	switch note := st.UntrustedNote(); {
	case ok:
		return &ok, "trusted (" + s.Path() + "): its grants and restrictions apply", grants
	case note != "":
		return &ok, "untrusted (it " + note + "): " + ignored, grants
	}
	return &ok, "untrusted: " + ignored, grants
}

// explain is what Decide says for rawURL, parsed exactly as get parses it
// (the Fetch tool's PrepareCall), so its verdict is get's.
func explain(ctx context.Context, sc *scope.Scope, front policy.Front, rawURL string) explanation {
	e := explanation{Front: front.String(), Scheme: schemeRule(front)}
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
			e.Hint = explainURLHint
		}
		return e
	}
	need := req.Requirements[0]
	o := need.Origin()
	e.URL = o.String() + "/"
	e.Target = &o.Target
	q := sc.Args(front, o)
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
		e.Trace = append(e.Trace, traceStep{Layer: st.Layer.String(), Check: st.Check, File: st.File, Said: st.Said})
		switch st.Check {
		case policy.CheckLocal:
			lv := &localVerdict{File: st.File, Admitted: st.Refusal == nil}
			if st.Refusal == nil {
				lv.Port = st.Port
			} else {
				lv.Reason, lv.Message = st.Refusal.Code, st.Refusal.Message
			}
			e.Local = lv
		case policy.CheckAddress:
			addr, _ := netip.ParseAddr(o.Target.Host())
			e.Address = &addressVerdict{IP: addr.String(), Public: st.Range == "", Range: st.Range}
		}
	}
	return e
}

// explainURLHint is the hint of a URL explain refuses as invalid: the
// command's own usage, not the Fetch tool's JSON arguments.
const explainURLHint = "give the URL as ocfetch get takes it, e.g. https://example.com/ or http://127.0.0.1:3000/; run 'ocfetch explain --help' for usage"

func schemeRule(front policy.Front) string {
	if front == policy.FrontProxy {
		return "the proxy forwards what a saved rule covers, http on port 80 included; a target no rule covers is asked by ocfetch run on a terminal, and refused (not_approved) by ocfetch proxy and by run without a terminal"
	}
	return "the Fetch tool reaches public hosts over https only; http only in local mode"
}

// printExplanation writes the human form, every value made safe to show.
func printExplanation(w io.Writer, e explanation) {
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-11s %s\n", k+":", safetext.Line(v))
		}
	}
	decision := e.Decision
	if e.Decision == "ask" && e.Front == policy.FrontProxy.String() {
		decision = "ask: ocfetch run on a terminal asks you; ocfetch proxy, and run without a terminal or with --no-ask, refuse it (not_approved)"
	}
	line("decision", decision)
	if e.Target != nil {
		line("target", e.Target.String())
	}
	if e.Layer != "" && e.Layer != "none" {
		line("layer", e.Layer)
	}
	line("rule", e.Rule)
	line("file", e.File)
	line("decided by", e.DecidedBy)
	if e.Reason != "" {
		line("reason", string(e.Reason)+": "+e.Message)
	}
	line("hint", e.Hint)
	line("open web", e.OpenWeb)
	line("scheme", e.Scheme)
	for _, l := range e.Layers {
		line("layer "+l.Layer, l.File+": "+l.State)
	}
	if l := e.Local; l != nil {
		if l.Admitted {
			line("local mode", fmt.Sprintf("admits port %d (%s)", l.Port, l.File))
		} else {
			line("local mode", fmt.Sprintf("refuses: %s: %s", l.Reason, l.Message))
		}
	}
	if ad := e.Address; ad != nil {
		if ad.Public {
			line("address", ad.IP+" is public")
		} else {
			line("address", ad.IP+" is in "+ad.Range+": never dialled")
		}
	} else if e.Target != nil && e.Local == nil {
		line("address", "a name: resolved and checked when get dials, not here")
	}
}
