// Package download saves the body of a fetched response to a file, as the
// client reads it, and shows its progress on a terminal: `ocfetch get -o
// FILE`, for any caller of the fetch tool.
//
// A [Transport] sits between a client and its transport (the guarded one,
// which keeps dialing: the egress guard is untouched) and copies each
// response body, after decompression, to a [File] and a [Bar]. The file
// is written next to its destination and renamed into place by
// [File.Commit] only when the call delivered a whole body, so a refused or
// failed call leaves no file behind; [File.Discard] removes what was
// written otherwise.
//
//	file, err := download.NewFile("report.pdf")
//	if err != nil {
//		return err // a *DestinationError: no such directory, a directory, a FIFO or device
//	}
//	defer file.Discard()
//	bar := download.NewBar(os.Stderr, 1<<20, nil)
//	client.Transport = &download.Transport{Next: client.Transport, File: file, Bar: bar}
//	res := b.Call(ctx, fetch.NewFetch(client, nil), argsJSON)
//	bar.Finish()
//	if out, ok := fetch.OutputOf(res.Structured); ok && !res.IsError && !out.BodyTruncated {
//		err = file.Commit(out.Bytes)
//	}
package download
