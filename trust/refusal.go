package trust

import (
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
)

// Untrusted returns the workspace_untrusted refusal for a call that needed
// a grant the workspace at root gives in file, ignored because the
// workspace is not trusted. grant says what was ignored, in the words of
// the file: "allow 127.0.0.1:6379", "profile permissive", "port 6379".
// The hint is the command that trusts the workspace, for the user to run
// (a model is told to ask for it). Every front end refuses with this one
// value, so the CLI, the MCP server and the proxy word it alike. Neither
// message nor hint carries anything of the request but what grant holds.
func Untrusted(root, file, grant string) *refusal.Error {
	return refusal.Newf(refusal.WorkspaceUntrusted,
		"workspace %s is not trusted, so %q in %s was ignored", safetext.Line(root), safetext.Short(grant), safetext.Line(file)).
		WithHint("if you trust this workspace's files, run `ocfetch trust --root " + safetext.ShellQuote(root) +
			"` (an AI agent should ask the user to run it)")
}
