package main

import (
	"errors"
	"path/filepath"

	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/sandbox"
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

// filesystem translates the filesystem flags: the workspace writable,
// plus --allow-write (`/` lifts the allow-list); --deny-read, and the
// credentials file of --upstream-proxy-auth, a secret of the run's proxy
// (shellrun adds what is never readable, settings.json's credentials file
// among them). A path that does not exist is a usage error naming the
// flag: a typo must not confine less than the user meant (a missing
// --upstream-proxy-auth file is applyEgress's usage error).
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
				hint := "give an existing file or directory"
				if fl.name == "--allow-write" {
					hint += " (create it first if COMMAND is to write there)"
				}
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
	if f.egress.upstreamAuth != "" {
		if abs, err := filepath.Abs(f.egress.upstreamAuth); err == nil {
			fsys.DenyRead = append(fsys.DenyRead, abs)
		}
	}
	return fsys, nil
}
