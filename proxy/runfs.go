package proxy

import (
	"os"
	"path/filepath"

	"github.com/ocfetch/ocfetch/sandbox"
)

// PolicyFiles are the files and directories that decide or record what
// the proxy for opts lets through: the workspace's .oc_chat/ (its rules,
// allowlist, settings and audit log), the audit log if it is elsewhere,
// the directories of the user's trust store and rules (with the
// credentials and MCP token beside them), and the managed policy's
// directory. [Run] keeps them read-only for the sandboxed command.
func PolicyFiles(opts *Options) []string {
	if opts == nil {
		return nil
	}
	var out []string
	add := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		p = filepath.Clean(p)
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
	}
	if opts.Workspace.Root != "" {
		add(opts.Workspace.Dir())
	}
	if opts.Audit != nil {
		add(opts.Audit.Path())
	}
	if s, err := opts.Layers.TrustStore(); err == nil {
		add(filepath.Dir(s.Path()))
	}
	if loc, err := opts.Layers.UserRules(); err == nil {
		add(loc.Dir)
	}
	if p := opts.Layers.ManagedPath(); p != "" {
		add(filepath.Dir(p))
	}
	return out
}

// SandboxFilesystem completes fs for the command: the policy files of
// opts are protected, and made to exist where ocfetch may create them
// (the workspace's .oc_chat/ as the audit line creates it, without
// trusting anything; the user's configuration directory), so that the
// command cannot create them instead. A nil fs is the default: the
// workspace and the temporary directory writable. [Run] calls it;
// `ocfetch run --explain` too, to print the plan Run would follow.
func SandboxFilesystem(opts *Options, fs *sandbox.Filesystem) (*sandbox.Filesystem, error) {
	f := sandbox.Filesystem{}
	if fs != nil {
		f = *fs
	} else if opts != nil && opts.Workspace.Root != "" {
		f.Writable = []string{opts.Workspace.Root}
	}
	if opts != nil && opts.Workspace.Root != "" {
		if err := opts.Workspace.EnsureDir(); err != nil {
			return nil, err
		}
	}
	if opts != nil {
		// The configuration directories: created as ocfetch creates them
		// (0700); where that fails the command cannot create them either,
		// or the sandbox keeps the nearest existing ancestor read-only.
		if s, err := opts.Layers.TrustStore(); err == nil {
			os.MkdirAll(filepath.Dir(s.Path()), 0o700)
		}
		if loc, err := opts.Layers.UserRules(); err == nil {
			os.MkdirAll(loc.Dir, 0o700)
		}
	}
	protected := PolicyFiles(opts)
	f.Protected = append(append([]string(nil), f.Protected...), protected...)
	return &f, nil
}
