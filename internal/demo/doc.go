// Package demo is ocfetch's offline demonstration (`ocfetch demo`): it
// starts a small web site on a free loopback port inside the process,
// creates a temporary workspace (profile permissive, that port
// allowlisted, its own trust store and user rules), fetches a page as
// Markdown through the broker and the fetch tool, then shows what is
// refused, each with its reason code — a redirect off the approved target,
// a port that is not allowlisted, 127.0.0.2, [::ffff:127.0.0.1], a
// full-width spelling of 127.0.0.1, a file:// URL — and checks the audit
// lines those calls wrote: one a call, none holding a path or query.
//
// Nothing leaves 127.0.0.1. Each step is checked, and marked ✓ or ✗ in
// the report; [Run] returns nil only when every step behaved as shown.
//
//	err := demo.Run(ctx, &demo.Options{Out: os.Stdout})
//	if errors.Is(err, demo.ErrMisbehaved) {
//		// a step went otherwise than shown: the report says which
//	}
package demo
