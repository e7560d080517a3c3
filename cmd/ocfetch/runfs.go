package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ocfetch/ocfetch/mcpserver"
	"github.com/ocfetch/ocfetch/proxy"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/sandbox"
	"github.com/ocfetch/ocfetch/trust"
)

// runFlags are ocfetch run's own flags.
type runFlags struct {
	noSandbox  bool
	allowWrite []string
	denyRead   []string
	explain    bool
	denyUnix   bool // --deny-unix-sockets
	// noAsk, report and egress: see newRunCmd (issue 23).
	noAsk, report bool
	egress        egressFlags
}

// filesystem builds the sandbox's filesystem confinement from the flags:
// the workspace writable, plus --allow-write (`/` lifts the allow-list);
// the default deny-read list plus --deny-read. A path that does not exist
// is a usage error naming the flag: a typo must not confine less than the
// user meant.
func (f runFlags) filesystem(a *app) (*sandbox.Filesystem, error) {
	ws, err := a.workspace()
	if err != nil {
		return nil, err
	}
	fsys := &sandbox.Filesystem{Writable: []string{ws.Root}}
	for _, fl := range []struct {
		name  string
		paths []string
		dst   *[]string
	}{{"--allow-write", f.allowWrite, &fsys.Writable}, {"--deny-read", f.denyRead, &fsys.DenyRead}} {
		for _, p := range fl.paths {
			abs, err := filepath.Abs(p)
			if err != nil || p == "" {
				return nil, usageErrorf("give an existing file or directory", "%s %s: not a usable path", fl.name, safetext.ShellQuote(p))
			}
			if err := sandbox.CheckPaths(fl.name, []string{abs}); err != nil {
				hint := "give an existing file or directory (create it first if COMMAND is to write there)"
				if !errors.Is(err, sandbox.ErrPathMissing) {
					hint = "give a file or directory ocfetch can reach"
				}
				return nil, usageErrorf(hint, "%s %s: %v", fl.name, safetext.ShellQuote(p), errors.Unwrap(err))
			}
			if fl.name == "--allow-write" && abs == "/" {
				fsys.WriteAnywhere = true
				continue
			}
			*fl.dst = append(*fl.dst, abs)
		}
	}
	// The workspace's trust marker is a secret of this machine too (where
	// the file system has no birth time): a command that read it could
	// plant it in a directory that later takes the workspace's place.
	fsys.DenyRead = append(append(defaultDenyRead(a), filepath.Join(ws.Dir(), trust.MarkerFile)), fsys.DenyRead...)
	return fsys, nil
}

// defaultDenyRead is what a confined command never reads, whatever the
// flags: ~/.ssh and ~/.gnupg hold the user's keys; proxy-credentials and
// mcp-token authenticate to ocfetch's own listeners. A path that does not
// exist is left out by the sandbox.
func defaultDenyRead(a *app) []string {
	var out []string
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		out = append(out, filepath.Join(home, ".ssh"), filepath.Join(home, ".gnupg"))
	}
	dir := a.layers.configDir
	if dir == "" {
		if p, err := mcpserver.DefaultTokenPath(); err == nil {
			dir = filepath.Dir(p)
		}
	}
	if dir != "" {
		out = append(out, filepath.Join(dir, "proxy-credentials"), filepath.Join(dir, mcpserver.TokenFileName))
	}
	return out
}

// runExplainSandbox prints what ocfetch run would confine, and how, and
// runs nothing. It makes the workspace's .oc_chat/ and the configuration
// directory exist, as run does, so that the plan is the one run follows.
func runExplainSandbox(a *app, opts *proxy.Options, fsys *sandbox.Filesystem, noSandbox bool) error {
	w := a.stdout
	if noSandbox {
		fmt.Fprintln(w, "sandbox: none (--no-sandbox): COMMAND's network and filesystem are not confined")
		return nil
	}
	full, err := proxy.SandboxFilesystem(opts, fsys)
	if err != nil {
		return classify(err)
	}
	home, _ := os.UserHomeDir()
	plan := full.Resolve(home)
	fmt.Fprintf(w, "workspace: %s\n", safetext.Line(opts.Scope.Workspace.Root))
	for _, l := range plan.Describe(sandbox.Mechanism(plan)) {
		fmt.Fprintln(w, safetext.Line(l))
	}
	return nil
}
