package trust

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/workspace"
)

// EnsureWorkspace is called by the user's own writes into .oc_chat/ (the
// first `rules allow`, `local allow`, `profile set`, an "always" answer):
// it creates the workspace's .oc_chat/ if it does not exist and trusts the
// workspace when ocfetch made what is there — a .oc_chat/ this call
// created, or one that holds nothing but ocfetch's own audit log and lock
// files (an earlier call's audit line made it) — so a new user's first
// steps need no trust command. how is recorded ("ocfetch rules allow").
// It reports whether it trusted the workspace.
//
// It never trusts a .oc_chat/ that holds a grant file (settings.json,
// local_fetch.json, rules.json) or anything else it does not know, nor
// one that is not a plain directory: those may have come with a clone.
// The audit line itself never calls it: a call that a model or a page
// chose must not trust a checkout whose next `git pull` may bring grant
// files. The store is checked before anything is created, and if trusting
// fails a .oc_chat/ created by this call is removed again, so a failure
// leaves the workspace as it was. The directory is created through an
// os.Root at the workspace root, never through a symlink.
func (s *Store) EnsureWorkspace(ctx context.Context, ws workspace.Workspace, how string) (created bool, err error) {
	e, err := s.Ensure(ctx, ws, how)
	return e.Trusted, err
}

// Ensured is what [Store.Ensure] did.
type Ensured struct {
	// Trusted: the workspace was not trusted and now is.
	Trusted bool
	// Created: this call created .oc_chat/ (Trusted is then set too).
	// When Trusted is set without it, .oc_chat/ was there already and
	// held only ocfetch's own files.
	Created bool
}

// Line is the one wording of what [Store.Ensure] did to the workspace ws,
// for a person (the root through safetext.Line): "trusted: ROOT (ocfetch
// created its .oc_chat/; …)" or "trusted: ROOT (its .oc_chat/ held only
// ocfetch's own files: …)", each naming the command that undoes it; ""
// when it trusted nothing.
func (e Ensured) Line(ws workspace.Workspace) string {
	switch {
	case e.Created:
		return fmt.Sprintf("trusted: %s (ocfetch created its %s/; `ocfetch trust --revoke` undoes this)",
			safetext.Line(ws.Root), workspace.DirName)
	case e.Trusted:
		return fmt.Sprintf("trusted: %s (its %s/ held only ocfetch's own files: the audit log, lock files; `ocfetch trust --revoke` undoes this)",
			safetext.Line(ws.Root), workspace.DirName)
	}
	return ""
}

// Ensure is [Store.EnsureWorkspace], saying also whether this call
// created .oc_chat/, so that what a user is told ("ocfetch created its
// .oc_chat/") is what happened.
func (s *Store) Ensure(ctx context.Context, ws workspace.Workspace, how string) (Ensured, error) {
	root, err := os.OpenRoot(ws.Root)
	if err != nil {
		return Ensured{}, fmt.Errorf("workspace %s: %w", ws.Root, err)
	}
	defer root.Close()
	if fi, err := root.Lstat(workspace.DirName); err == nil {
		if !fi.IsDir() || !onlyOcfetchFiles(root) {
			return Ensured{}, nil
		}
		if ok, err := s.Trusted(ws.Root); err != nil || ok {
			return Ensured{}, err
		}
		if err := s.Trust(ctx, ws.Root, Details{How: how}); err != nil {
			return Ensured{}, fmt.Errorf("trust the workspace %s: %w", ws.Root, err)
		}
		return Ensured{Trusted: true}, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Ensured{}, fmt.Errorf("workspace %s: %w", ws.Dir(), err)
	}
	if _, err := s.List(); err != nil {
		return Ensured{}, err // a store we cannot read, we cannot add to
	}
	if err := root.Mkdir(workspace.DirName, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return Ensured{}, nil // another process made it first: not ours
		}
		return Ensured{}, fmt.Errorf("workspace: create %s: %w", ws.Dir(), err)
	}
	if err := s.Trust(ctx, ws.Root, Details{How: how}); err != nil {
		// We just made it: empty, or holding the marker Trust wrote
		// before the store failed.
		_ = root.Remove(filepath.Join(workspace.DirName, MarkerFile))
		_ = root.Remove(workspace.DirName)
		return Ensured{}, fmt.Errorf("trust the new workspace %s: %w", ws.Root, err)
	}
	return Ensured{Trusted: true, Created: true}, nil
}

// onlyOcfetchFiles reports whether the .oc_chat/ directory in root holds
// regular files ocfetch writes for itself only: the audit log, lock files
// and the trust marker (which grants nothing, and which trusting replaces
// with a fresh one). Anything else (a grant file, a subdirectory, a symlink, a file it
// does not know) may have been shipped, and makes it false.
func onlyOcfetchFiles(root *os.Root) bool {
	d, err := root.Open(workspace.DirName)
	if err != nil {
		return false
	}
	defer d.Close()
	entries, err := d.ReadDir(64)
	if err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	if len(entries) == 64 {
		return false // more than ocfetch's own files
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || name != workspace.AuditFile && name != MarkerFile && !strings.HasSuffix(name, ".lock") {
			return false
		}
	}
	return true
}
