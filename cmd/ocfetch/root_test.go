package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestCommandFor(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no arguments", nil, ""},
		{"get", []string{"get", "http://127.0.0.1:8080/"}, "get"},
		{"after --root", []string{"--root", "/w", "get", "u"}, "get"},
		{"--root's value is not the command", []string{"--root", "get", "rules", "list"}, "rules"},
		{"--root=", []string{"--root=/w", "--profile=strict", "explain", "u"}, "explain"},
		{"after --profile", []string{"--profile", "permissive", "proxy"}, "proxy"},
		{"-v and -vvv", []string{"-v", "-vvv", "--verbose", "mcp"}, "mcp"},
		{"--root without a value", []string{"--root"}, ""},
		{"help", []string{"help", "get"}, ""},
		{"--help", []string{"--help"}, ""},
		{"--version", []string{"--version"}, ""},
		{"-h before the command", []string{"-h", "get"}, ""},
		{"completion", []string{"completion", "bash"}, ""},
		{"shell completion request", []string{"__complete", "get", ""}, ""},
		{"unknown command", []string{"gett", "u"}, ""},
		{"unknown flag before the command", []string{"--nope", "get"}, ""},
		{"-v=2", []string{"-v=2", "get"}, ""},
		{"a lone dash", []string{"-", "get"}, ""},
		{"--", []string{"--", "get"}, ""},
		{"a subcommand's flag after it", []string{"get", "--format", "raw", "u"}, "get"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := commandFor(tc.args); got != tc.want {
				t.Errorf("commandFor(%q) = %q; want %q", tc.args, got, tc.want)
			}
		})
	}
	for _, c := range subcommands {
		if got := commandFor([]string{c.name}); got != c.name {
			t.Errorf("commandFor([%q]) = %q; want it", c.name, got)
		}
	}
}

// TestOneCommandTreeAnswersAlike runs each subcommand's help, and a usage
// error of each, against the root built with that subcommand alone and
// against the whole tree: the output and the error are the same.
func TestOneCommandTreeAnswersAlike(t *testing.T) {
	full := newRootCmd(newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}), "")
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	for _, c := range full.Commands() {
		if c.Name() == "completion" || c.Name() == "help" {
			continue
		}
		walk(c, []string{c.Name()})
	}
	if len(paths) < len(subcommands) {
		t.Fatalf("%d command paths; want at least %d", len(paths), len(subcommands))
	}
	answer := func(only string, args []string) (string, string) {
		var out, errOut bytes.Buffer
		a := newApp(strings.NewReader(""), &out, &errOut)
		root := newRootCmd(a, only)
		root.SetArgs(args)
		err := root.ExecuteContext(context.Background())
		msg := "<nil>"
		if err != nil {
			e := asExitError(err)
			msg = e.Error() + " | " + e.hint
		}
		return out.String() + errOut.String(), msg
	}
	for _, path := range paths {
		for _, extra := range [][]string{{"--help"}, {"--no-such-flag"}} {
			args := append(append([]string{"--root", t.TempDir()}, path...), extra...)
			name := strings.Join(append(path, extra...), " ")
			t.Run(name, func(t *testing.T) {
				if got := commandFor(args); got != path[0] {
					t.Fatalf("commandFor(%q) = %q; want %q", args, got, path[0])
				}
				wantOut, wantErr := answer("", args)
				gotOut, gotErr := answer(path[0], args)
				if gotOut != wantOut {
					t.Errorf("output with %s alone:\n%s\nwant (the whole tree):\n%s", path[0], gotOut, wantOut)
				}
				if gotErr != wantErr {
					t.Errorf("error with %s alone: %s; want (the whole tree) %s", path[0], gotErr, wantErr)
				}
				if extra[0] == "--help" && !strings.Contains(wantOut, "Usage:") {
					t.Errorf("help of %s has no Usage: %q", name, wantOut)
				}
			})
		}
	}
}
