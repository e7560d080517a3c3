// Package mcpstdio is the stdio transport of the MCP server: an
// [mcp.Transport] of the MCP Go SDK that carries newline-delimited
// JSON-RPC 2.0 over a client's stdin and stdout.
//
// Its contract, beyond the SDK's own stdio transport:
//
//   - It survives any line. The SDK ends the session on the first message
//     it cannot decode; here a line that is not JSON gets the JSON-RPC
//     parse error (-32700), and one that is not a JSON-RPC message, nests
//     deeper than [Options.MaxNesting] or is longer than [Options.MaxLine]
//     gets invalid request (-32600), with the message's id when it can be
//     read and null otherwise; the session serves on. Blank lines are
//     skipped. Batches are admitted on protocol versions before 2025-06-18
//     only, and answered as one array.
//   - Each line is read and decoded once, for the SDK; a result is written
//     around the bytes the SDK encoded it to, not encoded again. Every
//     message is written in one Write, so lines never interleave.
//   - It is bounded by its client's reading: at most [Options.MaxPending]
//     requests are unanswered or their answers unwritten; one beyond is
//     answered here (-32000) before the next line is read, so a client
//     that stops reading its output stops the reading of its input. A
//     request whose id is that of one still unanswered is refused (-32600).
//   - Closing the connection closes the input, which ends a pending read;
//     the output is never closed (stdout outlives the session).
//     [Options.OnEnd] tells the owner when the input ends.
//
// [PollableInput] reads a blocking pipe or socket stdin through the
// runtime's poller, so that an idle server parks no thread in read(2).
//
// The bounds are the caller's: mcpserver passes its MaxLineBytes and
// MaxNesting.
//
//	in := mcpstdio.PollableInput(os.Stdin, os.Stdout, os.Stderr)
//	t := mcpstdio.New(in, os.Stdout, mcpstdio.Options{MaxLine: maxLine, MaxNesting: maxNesting})
//	err := server.Run(ctx, t) // server: an *mcp.Server
package mcpstdio
