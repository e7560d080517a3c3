package main

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

// app is what every subcommand shares: the streams, the root flags, and the
// workspace and logger resolved once from them.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	// Root flags.
	rootDir     string
	profileFlag string
	verbose     int

	// interactive reports whether a person can be asked: stdin and stderr
	// are terminals. Tests replace it.
	interactive func() bool
	// progress reports whether stderr is a terminal a progress bar may
	// redraw (on Windows, a console that interprets its escape
	// sequences: escapesShown). Tests replace it.
	progress func() bool
	// termWidth reports stderr's width in columns, ≤ 0 when unknown.
	termWidth func() int
	// controllingTerminal opens the terminal that started the process, for
	// ocfetch run's questions; ok false when there is none. Tests replace
	// it (an in-process test must never ask the developer's terminal).
	controllingTerminal func() (*os.File, bool)
	// egressOptions, when set, adjusts the egress options of get and the
	// proxy. Only tests set it: they inject a resolver and a dialer that
	// reach a loopback TLS server under a public-looking address.
	egressOptions func(*egress.Options)
	// layers: where the user's and the administrator's files are (trust.go).
	layers layerFiles
	// pinned is the trust store that also trusts --trust-root's workspace
	// for this process (trustroot.go); nil without the flag.
	pinned *trust.Store
	// getenv reads the environment (OCFETCH_TRUST_ROOT). Tests replace it.
	getenv func(string) string

	// export is the audit exporter, if a collector is configured
	// (auditexport.go).
	export auditExport

	ws        *workspace.Workspace
	logger    *slog.Logger
	verbosity int
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	a.interactive = func() bool { return isTerminal(a.stdin) && isTerminal(a.stderr) }
	a.progress = func() bool { return isTerminal(a.stderr) && escapesShown(a.stderr) }
	a.termWidth = func() int { return terminalWidth(a.stderr) }
	a.controllingTerminal = openControllingTerminal
	a.getenv = os.Getenv
	return a
}

// workspace resolves --root (else the current directory) the first time it
// is needed, and returns the same workspace ever after: every reader and
// writer of .oc_chat/ in this process takes it from here.
func (a *app) workspace() (workspace.Workspace, error) {
	if a.ws != nil {
		return *a.ws, nil
	}
	ws, err := workspace.Resolve(a.rootDir)
	if err != nil {
		return workspace.Workspace{}, usageErrorf("--root must name an existing directory", "%v", err)
	}
	a.ws = &ws
	return ws, nil
}

// scope is the one place a front end's frame is built (scope.Open): the
// workspace of --root, the profile (--profile beats settings.json), the
// upstream proxy (upstream beats settings.json's; "none" turns it off;
// readUpstream false: neither is read) and the layers. A bad flag is a
// usage error naming it; a bad file a refusal naming the file.
func (a *app) scope(upstream string, readUpstream bool) (*scope.Scope, error) {
	ws, err := a.workspace()
	if err != nil {
		return nil, err
	}
	layers, err := a.policyLayers()
	if err != nil {
		return nil, err
	}
	sc, err := scope.Open(ws, scope.Flags{Profile: a.profileFlag, Upstream: upstream, NoSettingsUpstream: !readUpstream}, layers)
	if err != nil {
		return nil, scopeError(err)
	}
	return sc, nil
}

// scopeError classifies an error of scope.Open: a flag's is a usage error.
func scopeError(err error) error {
	var fe *scope.FlagError
	switch {
	case !errors.As(err, &fe):
	case fe.Flag == "--upstream-proxy":
		return usageErrorf("write --upstream-proxy http://HOST:PORT (or https://HOST:PORT)", "--upstream-proxy: %v", fe.Err)
	default:
		e := classify(fe.Err)
		e.code = exitUsage
		return e
	}
	return classify(err)
}

// log returns the diagnostics logger (stderr only), at the verbosity of -v
// or OCFETCH_DEBUG, whichever is higher.
func (a *app) log() *slog.Logger {
	if a.logger == nil {
		a.logger = diag.New(a.stderr, a.verbosity)
	}
	return a.logger
}

// subcommands are ocfetch's commands, in the order help lists them, each
// with the function that builds it.
var subcommands = [...]struct {
	name string
	new  func(*app) *cobra.Command
}{
	{"get", newGetCmd},
	{"search", newSearchCmd},
	{"explain", newExplainCmd},
	{"rules", newRulesCmd},
	{"local", newLocalCmd},
	{"audit", newAuditCmd},
	{"demo", newDemoCmd},
	{"version", newVersionCmd},
	{"mcp", newMCPCmd},
	{"proxy", newProxyCmd},
	{"run", newRunCmd},
	{"trust", newTrustCmd},
	{"profile", newProfileCmd},
}

// commandFor names the subcommand args run when that can be told from
// args alone: the first argument that is not one of the root's persistent
// flags (--root DIR, --profile P, their --flag=value forms, -v…,
// --verbose) is one of the subcommands' names. Anything else (no
// argument, help, completion, --version, another flag, an unknown or
// misspelt command) is "": cobra must see the whole tree to answer it.
func commandFor(args []string) string {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--root" || arg == "--profile":
			i++ // the flag's value
		case strings.HasPrefix(arg, "--root=") || strings.HasPrefix(arg, "--profile=") ||
			arg == "--verbose" || len(arg) > 1 && strings.Trim(arg[1:], "v") == "" && arg[0] == '-':
		case strings.HasPrefix(arg, "-"):
			return ""
		default:
			for _, c := range subcommands {
				if c.name == arg {
					return arg
				}
			}
			return ""
		}
	}
	return ""
}

// newRootCmd builds the command tree: all of it, or, when only names one
// of the subcommands (commandFor), the root with that subcommand alone. A
// one-shot command such as get then builds none of the other commands'
// flags and help and not the completion commands, which it cannot run;
// what it runs, its flags, help and errors are the same either way, since
// a subcommand's behaviour depends only on itself and the root's
// persistent flags.
func newRootCmd(a *app, only string) *cobra.Command {
	root := &cobra.Command{
		Use:   "ocfetch",
		Short: "A least-privilege web fetch for AI agents",
		Long: `ocfetch decides whether a network access is allowed, performs one bounded
request, and hands back a result that is safe to show a model and safe to log.

Public targets are https only and must be covered by a saved rule or approved
for the call; loopback is reachable only in local mode (profile permissive and
an allowlisted port). Every call writes one audit line to .oc_chat/audit.jsonl.`,
		Example: `  ocfetch demo
  ocfetch rules allow example.com
  ocfetch get https://example.com/
  ocfetch get --json --format text https://example.com/ | jq .content
  ocfetch audit --tail 5`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			n, err := diag.Verbosity(a.verbose)
			if err != nil {
				return a.preRunFailed(cmd, usageErrorf("set "+diag.EnvVar+" to 0–4, or unset it", "%v", err))
			}
			a.verbosity = n
			return nil
		},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErrorf("run '"+c.CommandPath()+" --help' for usage", "%v", err)
	})

	pf := root.PersistentFlags()
	pf.StringVar(&a.rootDir, "root", "", "workspace root `DIR` holding .oc_chat/ (default: the current directory)")
	pf.StringVar(&a.profileFlag, "profile", "", "risk `PROFILE`: strict, standard or permissive (default: settings.json, else standard)")
	root.RegisterFlagCompletionFunc("profile", cobra.FixedCompletions([]string{"strict", "standard", "permissive"}, cobra.ShellCompDirectiveNoFileComp))
	root.MarkPersistentFlagDirname("root")
	pf.CountVarP(&a.verbose, "verbose", "v", "diagnostics on stderr; repeat for more (-vvvv), or set "+diag.EnvVar+"=1..4")

	if only != "" {
		for _, c := range subcommands {
			if c.name == only {
				root.AddCommand(c.new(a))
			}
		}
		// Not built: only the completion command itself could run it.
		root.CompletionOptions.DisableDefaultCmd = true
		return root
	}
	// Only the root's own --version flag prints it (cobra adds that flag
	// when Version is set).
	root.Version = currentBuild().String()
	for _, c := range subcommands {
		root.AddCommand(c.new(a))
	}
	// cobra's own completion command, with examples like every other.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Example = `  ocfetch completion bash > /etc/bash_completion.d/ocfetch
  ocfetch completion zsh > "${fpath[1]}/_ocfetch"
  ocfetch completion fish > ~/.config/fish/completions/ocfetch.fish
  ocfetch completion powershell | Out-String | Invoke-Expression`
			// An unknown shell is a usage error, as in every other group.
			c.Args, c.RunE = cobra.ArbitraryArgs, groupRun
		}
	}
	return root
}

// jsonErrorsAnnotation marks a command whose --json reports every usage
// error as its one JSON object (get, search: {"ok": false, "error":
// {"reason": "invalid_arguments", …}}), so that a usage error found
// before it runs (a bad OCFETCH_DEBUG) is reported that way too.
const jsonErrorsAnnotation = "ocfetch/json-errors"

// preRunFailed reports e, a usage error found before cmd runs: as the JSON
// error object on stdout when cmd promises one under --json, else (as
// every error) on stderr.
func (a *app) preRunFailed(cmd *cobra.Command, e *exitError) error {
	if cmd.Annotations[jsonErrorsAnnotation] == "" {
		return e
	}
	if asJSON, _ := cmd.Flags().GetBool("json"); !asJSON {
		return e
	}
	if err := writeJSON(a.stdout, errorJSON{Error: errorField{Reason: refusal.InvalidArguments, Message: safetext.Line(e.msg), Hint: safetext.Line(e.hint)}}); err != nil {
		return err
	}
	e.quiet = true
	return e
}
