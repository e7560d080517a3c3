package policy

import (
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
)

// AllowCommand returns the command that saves an allow rule for t, its
// argument quoted ([safetext.ShellQuote]) so that pasting it runs nothing
// else: "ocfetch rules allow '[2606:4700::1111]:443'".
func AllowCommand(t capability.Target) string {
	return "ocfetch rules allow " + safetext.ShellQuote(t.String())
}

// RemoveCommand returns the command that removes the rule on target
// ("HOST:PORT" or "*.domain:PORT" as rules print it), quoted likewise.
func RemoveCommand(target string) string {
	return "ocfetch rules remove " + safetext.ShellQuote(target)
}

// RemoveUserCommand is [RemoveCommand] for a rule of the user's own rules
// file (`ocfetch rules remove --user`).
func RemoveUserCommand(target string) string {
	return "ocfetch rules remove --user " + safetext.ShellQuote(target)
}

// AllowHint is the hint of a not_approved refusal for t. A person is told
// the command to run; a model (forModel: the MCP server) is told to ask the
// user to run it, so that an agent with a shell is not handed the command
// that approves its own call.
func AllowHint(t capability.Target, forModel bool) string {
	if forModel {
		return refusal.AskUserToRun(AllowCommand(t))
	}
	return "allow it with: " + AllowCommand(t)
}
