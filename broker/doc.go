// Package broker runs one tool call end to end: prepare, decide, bind, run,
// audit.
//
// The decision for each capability requirement of a prepared call is
// policy.Decide's, with the layers of [Broker.Layers] (the managed policy,
// the workspace when trusted, the user's rules): a deny from any layer
// refuses (denied_by_rule); a saved allow rule that counts admits; profile
// strict refuses anything else (not_approved); otherwise the [Approver] is
// asked, and its answer once / always / deny is final for this call
// ("always" also saves an allow rule in the workspace, creating and
// trusting .oc_chat/ when it did not exist). Whatever
// happens, exactly one audit line is appended, and it never holds the path,
// query, headers or body of the request.
//
//	sc, err := scope.Open(ws, scope.Flags{}, nil) // the workspace's frame
//	b := &broker.Broker{
//		Scope:    sc,
//		Approver: broker.NonInteractive(),
//		Audit:    audit.Open(ws),
//	}
//	res := b.Call(ctx, fetch.NewFetch(client, opts), `{"url":"https://example.com/"}`)
package broker
