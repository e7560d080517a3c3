package trust

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/ocfetch/ocfetch/workspace"
)

// EnsureWorkspace creates the workspace's .oc_chat/ if it does not exist
// and, when this call created it, trusts the workspace: a directory whose
// .oc_chat/ ocfetch itself made holds nothing anyone else shipped, so a
// new user's first `rules allow`, `local allow`, `profile set` or
// "always" answer needs no trust command. how is recorded ("ocfetch rules
// allow").
//
// Call it before the first write into .oc_chat/. When .oc_chat already
// exists (as anything: a directory, a file, a symlink) it does nothing and
// returns false: an existing .oc_chat/ may have come with a clone. The
// store is checked before anything is created, and if trusting fails the
// new, empty .oc_chat/ is removed again, so a failure leaves the
// workspace as it was. The directory is created through an os.Root at the
// workspace root, never through a symlink.
func (s *Store) EnsureWorkspace(ctx context.Context, ws workspace.Workspace, how string) (created bool, err error) {
	root, err := os.OpenRoot(ws.Root)
	if err != nil {
		return false, fmt.Errorf("workspace %s: %w", ws.Root, err)
	}
	defer root.Close()
	if _, err := root.Lstat(workspace.DirName); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("workspace %s: %w", ws.Dir(), err)
	}
	if _, err := s.List(); err != nil {
		return false, err // a store we cannot read, we cannot add to
	}
	if err := root.Mkdir(workspace.DirName, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil // another process made it first: not ours
		}
		return false, fmt.Errorf("workspace: create %s: %w", ws.Dir(), err)
	}
	if err := s.Trust(ctx, ws.Root, Details{How: how}); err != nil {
		_ = root.Remove(workspace.DirName) // empty: we just made it
		return false, fmt.Errorf("trust the new workspace %s: %w", ws.Root, err)
	}
	return true, nil
}
