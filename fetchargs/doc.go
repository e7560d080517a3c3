// Package fetchargs is the Fetch tool's arguments document: the JSON
// Schema a model is shown ([Schema]), its strict decoding into typed
// fields ([Decode], [Args]), the rules for the request headers a call may
// set ([ValidateHeaders]) and the bounds of every field. It parses only:
// it sends nothing and decides nothing about admission; fetch.PrepareCall
// checks the decoded fields against these bounds and the Fetch's caps and
// parses the URL.
//
//	a, err := fetchargs.Decode(`{"url": "https://example.com/", "max_length": 500}`)
//	if err != nil {
//		return err // a *refusal.Error, invalid_arguments
//	}
//	h, err := fetchargs.ValidateHeaders(a.Headers)
//
// Contract: every refusal is [Invalid]'s (invalid_arguments, its hint the
// whole document); a message names a field, a header NAME or a byte
// offset, never a value, since values may be secrets.
package fetchargs
