// Package robotscheck is the robots.txt check of a session
// (--respect-robots): an origin's robots.txt fetched under the same
// decision as the page, kept per origin, and a page it disallows for
// [Agent] refused (robots_disallowed). The file itself is parsed by
// package robots; the caller (the Fetch tool) injects how its request is
// sent and how a failure is named ([Call]), so this package imports no
// caller.
//
// One [Checker] serves a session (a process of ocfetch get, an MCP
// server); each check names its call:
//
//	rc := robotscheck.New(nil) // fetch.Options{Robots: rc}
//	err := rc.Check(ctx, &robotscheck.Call{
//		Client:    client,    // the call's client; ctx carries its admission
//		UserAgent: userAgent, // nothing else of the call is sent
//		Origin:    origin,    // capability.Origin, parsed once
//		Redecide:  again,     // asked for each redirect hop on the origin
//		Fail:      fail,      // names a failure as the page's would be
//	}, pageURL)
//
// The contract (what each answer means, what is kept, how long, what a
// message names) is [Checker]'s.
package robotscheck
