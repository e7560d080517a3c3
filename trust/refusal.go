package trust

import (
	"time"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
)

// Command is the command that trusts the workspace at root, for a person
// to run: "ocfetch trust --root '/p/proj'" (the root shell-quoted).
func Command(root string) string {
	return "ocfetch trust --root " + safetext.ShellQuote(root)
}

// Untrusted returns the workspace_untrusted refusal for a call that needed
// a grant the workspace at root gives in file, ignored because the
// workspace is not trusted. grant says what was ignored, in the words of
// the file: "allow 127.0.0.1:6379", "profile permissive", "port 6379".
// The hint is the command that trusts the workspace, for the user to run;
// its ModelHint (refusal.Error.ForModel) asks a model to ask the user to
// run it. Every front end refuses with this one
// value, so the CLI, the MCP server and the proxy word it alike. Neither
// message nor hint carries anything of the request but what grant holds.
func Untrusted(root, file, grant string) *refusal.Error {
	return refusal.Newf(refusal.WorkspaceUntrusted,
		"workspace %s is not trusted, so %q in %s was ignored", safetext.Line(root), safetext.Short(grant), safetext.Line(file)).
		WithHints("if you trust this workspace's files, run `"+Command(root)+
			"` (an AI agent should ask the user to run it)",
			refusal.AskUserToRun(Command(root))+" if they trust this workspace's files")
}

// Refusal is the workspace_untrusted refusal for a call that needed a
// grant the workspace at root gives in file, when st does not trust it.
// It says why: the directory at root was replaced since it was trusted (a
// directory deleted and made again, another clone at the same path), or
// the entry was written by an older ocfetch, which did not record which
// directory it trusted; else it is [Untrusted].
func (st Status) Refusal(root, file, grant string) *refusal.Error {
	if !st.Found {
		return Untrusted(root, file, grant)
	}
	cmd := "`" + Command(root) + "`"
	switch {
	case st.State == Replaced:
		return refusal.Newf(refusal.WorkspaceUntrusted,
			"workspace %s was replaced since it was trusted on %s (the directory at that path now is another one), so %q in %s was ignored",
			safetext.Line(root), st.Entry.TrustedAt.UTC().Format(time.DateOnly), safetext.Short(grant), safetext.Line(file)).
			WithHints("if you trust the new directory's files, run "+cmd+" (an AI agent should ask the user to run it)",
				refusal.AskUserToRun(Command(root))+" if they trust the new directory's files")
	case st.State == Present && st.Entry.Outdated():
		return refusal.Newf(refusal.WorkspaceUntrusted,
			"workspace %s was trusted by an older ocfetch, which did not record which directory it was, so %q in %s was ignored",
			safetext.Line(root), safetext.Short(grant), safetext.Line(file)).
			WithHints("if you still trust this workspace's files, run "+cmd+" again (an AI agent should ask the user to run it)",
				refusal.AskUserToRun(Command(root))+" again if they still trust this workspace's files")
	}
	return Untrusted(root, file, grant)
}

// UntrustedNote says, for a person reading `ocfetch trust` or `ocfetch
// explain`, why a workspace the store has an entry for is not trusted
// (the reasons [Status.Refusal] gives a call): "" when st trusts it, or
// when there is no entry.
func (st Status) UntrustedNote() string {
	switch {
	case !st.Found || st.Trusted():
		return ""
	case st.State == Replaced:
		return "was replaced since it was trusted on " + st.Entry.TrustedAt.UTC().Format(time.DateOnly) + ": the directory there now is another one, and it is not trusted"
	case st.Entry.Outdated() && st.State == Present:
		return "was trusted by an older ocfetch, which did not record which directory it was: it is not trusted until you trust it again"
	}
	return ""
}
