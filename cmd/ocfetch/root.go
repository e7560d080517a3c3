package main

import (
	"errors"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/egress"
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
	// redraw. Tests replace it.
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
	a.progress = func() bool { return isTerminal(a.stderr) }
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

func newRootCmd(a *app) *cobra.Command {
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
		Version:       versionString(),
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			n, err := diag.Verbosity(a.verbose)
			if err != nil {
				return usageErrorf("set "+diag.EnvVar+" to 0–4, or unset it", "%v", err)
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

	root.AddCommand(
		newGetCmd(a),
		newSearchCmd(a),
		newExplainCmd(a),
		newRulesCmd(a),
		newLocalCmd(a),
		newAuditCmd(a),
		newDemoCmd(a),
		newVersionCmd(a),
		newMCPCmd(a),
		newProxyCmd(a),
		newRunCmd(a),
		newTrustCmd(a),
		newProfileCmd(a),
	)
	// cobra's own completion command, with examples like every other.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Example = `  ocfetch completion bash > /etc/bash_completion.d/ocfetch
  ocfetch completion zsh > "${fpath[1]}/_ocfetch"
  ocfetch completion fish > ~/.config/fish/completions/ocfetch.fish
  ocfetch completion powershell | Out-String | Invoke-Expression`
		}
	}
	return root
}
