package shellrun

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/internal/secretfile"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/sandbox"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/trust"
)

// PolicyFiles are the files and directories that decide or record what
// the run's proxy lets through: the workspace's .oc_chat/ (its rules,
// allowlist, settings and audit log), the audit log if it is elsewhere,
// the directories of the user's trust store and rules (with the
// credentials and MCP token beside them), and the managed policy's
// directory. [Run] keeps them read-only for the sandboxed command.
func PolicyFiles(sc *scope.Scope, log *audit.Log) []string {
	if sc == nil {
		return nil
	}
	var out []string
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) && !slices.Contains(out, filepath.Clean(p)) {
			out = append(out, filepath.Clean(p))
		}
	}
	if sc.Workspace.Root != "" {
		add(sc.Workspace.Dir())
	}
	if log != nil {
		add(log.Path())
	}
	if s, err := sc.Layers.TrustStore(); err == nil {
		add(filepath.Dir(s.Path()))
	}
	if loc, err := sc.Layers.UserRules(); err == nil {
		add(loc.Dir)
	}
	if p := sc.Layers.ManagedPath(); p != "" {
		add(filepath.Dir(p))
	}
	return out
}

// DenyRead is what a sandboxed command never reads, whatever the options
// say: ~/.ssh and ~/.gnupg hold the user's keys; ocfetch's own secrets
// beside the user's rules (internal/secretfile's: the proxy's credentials,
// the MCP token) authenticate to its listeners, and its key files (the
// search backend's API key: secretfile.KeyPattern) to the services they
// name; the upstream proxy's credentials file (settings.json's
// upstream_proxy_auth_file, scope.Scope.UpstreamAuthFile; a front end adds
// its flag's to its Filesystem's DenyRead), which the run's proxy presents
// to the operator's proxy; and the workspace's trust
// marker, where the file system has no birth time, is a secret of this
// machine too — a command that read it could plant it in a directory that
// later takes the workspace's place. A path that does not exist is left
// out by the sandbox.
func DenyRead(sc *scope.Scope) []string {
	var out []string
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		out = append(out, filepath.Join(home, ".ssh"), filepath.Join(home, ".gnupg"))
	}
	if loc, err := sc.Layers.UserRules(); err == nil && loc.Dir != "" {
		for _, name := range secretfile.Names {
			out = append(out, filepath.Join(loc.Dir, name))
		}
		keys, _ := filepath.Glob(filepath.Join(loc.Dir, secretfile.KeyPattern)) // only a bad pattern errs
		for _, k := range keys {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	if f := sc.UpstreamAuthFile; f != "" && filepath.IsAbs(f) {
		out = append(out, filepath.Clean(f))
	}
	return append(out, filepath.Join(sc.Workspace.Dir(), trust.MarkerFile))
}

// Confinement completes fs for the sandboxed command: the [PolicyFiles]
// of sc and log protected, and made to exist where ocfetch may create
// them (the workspace's .oc_chat/ as the audit line creates it, without
// trusting anything; the user's configuration directory), so that the
// command cannot create them instead; [DenyRead] before fs's own. A nil
// fs is the default: the workspace and the temporary directory writable.
// [Run] calls it; [Explain] too, to print the plan Run would follow.
func Confinement(sc *scope.Scope, log *audit.Log, fs *sandbox.Filesystem) (*sandbox.Filesystem, error) {
	f := sandbox.Filesystem{Writable: []string{sc.Workspace.Root}}
	if fs != nil {
		f = *fs
	}
	if err := sc.Workspace.EnsureDir(); err != nil {
		return nil, err
	}
	// The configuration directories: created as ocfetch creates them
	// (0700); where that fails the command cannot create them either, or
	// the sandbox keeps the nearest existing ancestor read-only.
	if s, err := sc.Layers.TrustStore(); err == nil {
		os.MkdirAll(filepath.Dir(s.Path()), 0o700)
	}
	if loc, err := sc.Layers.UserRules(); err == nil {
		os.MkdirAll(loc.Dir, 0o700)
	}
	f.Protected = append(slices.Clone(f.Protected), PolicyFiles(sc, log)...)
	f.DenyRead = append(DenyRead(sc), f.DenyRead...)
	return &f, nil
}

// Explain writes what [Run] would confine for opts, and how, and runs
// nothing: the workspace, then the sandbox's plan (sandbox.Plan.Describe)
// and the mechanism that enforces it. It makes the workspace's .oc_chat/
// and the configuration directory exist, as Run does, so that the plan is
// the one Run follows.
func Explain(w io.Writer, sc *scope.Scope, opts *Options) error {
	if opts == nil {
		opts = &Options{}
	}
	if opts.NoSandbox {
		fmt.Fprintln(w, "sandbox: none (--no-sandbox): COMMAND's network and filesystem are not confined")
		return nil
	}
	full, err := Confinement(sc, opts.Audit, opts.Filesystem)
	if err != nil {
		return err
	}
	home, _ := os.UserHomeDir()
	plan := full.Resolve(home)
	fmt.Fprintf(w, "workspace: %s\n", safetext.Line(sc.Workspace.Root))
	for _, l := range plan.Describe(sandbox.Mechanism(plan)) {
		fmt.Fprintln(w, safetext.Line(l))
	}
	return nil
}
