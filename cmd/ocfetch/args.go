package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// noArgs refuses positional arguments with a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf(helpHint(cmd), "%s takes no arguments; %d given", cmd.CommandPath(), len(args))
	}
	return nil
}

// exactArgs wants one positional argument per name, and says which is
// missing or extra.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < len(names):
			return usageErrorf(helpHint(cmd), "missing %s", names[len(args)])
		case len(args) > len(names):
			return usageErrorf(helpHint(cmd), "%d arguments given; want %d (%s)", len(args), len(names), strings.Join(names, ", "))
		}
		return nil
	}
}

func helpHint(cmd *cobra.Command) string {
	return "run '" + cmd.CommandPath() + " --help' for usage"
}

// groupRun is the RunE of a command that only groups subcommands: alone it
// prints its help; with an argument that is no subcommand of it, it is a
// usage error (cobra would print the help and exit 0).
func groupRun(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf(helpHint(cmd), "unknown command %q for %q", args[0], cmd.CommandPath())
	}
	return cmd.Help()
}
