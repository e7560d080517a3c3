package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/trust"
)

// trustRootEnv is the environment variable --trust-root defaults to: the
// container's way (docker run -e OCFETCH_TRUST_ROOT=/work).
const trustRootEnv = "OCFETCH_TRUST_ROOT"

// trustRootFlag is --trust-root, as the audit line and stderr name it.
const trustRootFlag = "--trust-root"

// addTrustRootFlag adds --trust-root to a server command (mcp, proxy).
func addTrustRootFlag(cmd *cobra.Command, dir *string) {
	cmd.Flags().StringVar(dir, "trust-root", "", "trust the workspace root `DIR` for this process only, without the trust store (a workspace mounted into a container); DIR must be exactly the workspace root, an absolute path without symlinks (default $"+trustRootEnv+")")
	cmd.MarkFlagDirname("trust-root")
}

// applyTrustRoot makes this process trust the workspace root that
// --trust-root (else $OCFETCH_TRUST_ROOT) names, and only it: the trust
// store is not written, and what `ocfetch trust` says about other
// workspaces is unchanged. The root must be exactly the workspace's
// (--root, else the current directory) after cleaning — compared as the
// platform's file systems compare names (trust.SamePath: case-insensitive
// on Windows and macOS), another spelling only where it reaches the very
// directory (sameDirectory) — absolute, with no symlink on the way; a managed policy's "allow_trust_flag": false refuses
// it. It says on stderr what it trusts.
func (a *app) applyTrustRoot(name, flag string) error {
	dir, from := flag, trustRootFlag
	if dir == "" {
		dir, from = a.getenv(trustRootEnv), trustRootEnv
	}
	if dir == "" {
		return nil
	}
	m, err := a.managedPolicy()
	if err != nil {
		return err
	}
	if m.NoTrustFlag {
		return refusalError(refusal.Newf(refusal.ManagedPolicyForbids,
			"the managed policy %s forbids trusting a workspace by %s (allow_trust_flag: false)", m.File, from).
			WithHint("drop " + from + "; the user trusts a workspace with `ocfetch trust --root DIR`, or ask your administrator"))
	}
	ws, err := a.workspace()
	if err != nil {
		return err
	}
	sep := " "
	if from == trustRootEnv {
		sep = "="
	}
	hint := "name the workspace root itself: " + from + sep + safetext.ShellQuote(ws.Root) + " (or --root DIR with the same DIR)"
	if !filepath.IsAbs(dir) {
		return usageErrorf(hint, "%s %s is not an absolute path", from, safetext.ShellQuote(dir))
	}
	if clean := filepath.Clean(dir); !samePath(clean, ws.Root) || !sameDirectory(clean, ws.Root) {
		return usageErrorf(hint, "%s %s is not the workspace root %s; it trusts that root only", from, safetext.ShellQuote(clean), safetext.Line(ws.Root))
	}
	s, err := a.trustStore()
	if err != nil {
		return err
	}
	pinned, err := s.Pin(ws.Root, from)
	if err != nil {
		return usageErrorf("name the directory itself, not a symlink to it", "%s: %v", from, err)
	}
	a.pinned = pinned
	fmt.Fprintf(a.stderr, "ocfetch %s: trusting the workspace %s for this process (%s), without the trust store: its .oc_chat/ files' grants count\n",
		name, safetext.Line(ws.Root), from)
	return nil
}

// samePath compares the root --trust-root names with the workspace's
// (trust.SamePath; a test stands in another platform's comparison).
var samePath = trust.SamePath

// sameDirectory reports whether named, a spelling of root that samePath
// accepts, is root's directory itself: root as written, or (where names
// ignore case) a spelling that reaches the very directory, not a symlink
// to it. On a case-sensitive volume of a Mac, or a Windows directory made
// case-sensitive, "PROJ" beside "proj" is another directory, or none.
func sameDirectory(named, root string) bool {
	if named == root {
		return true
	}
	a, err := os.Lstat(named)
	if err != nil {
		return false
	}
	b, err := os.Lstat(root)
	return err == nil && os.SameFile(a, b)
}
