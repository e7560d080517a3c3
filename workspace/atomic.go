package workspace

import (
	"context"
	"os"

	"github.com/ocfetch/ocfetch/internal/securefile"
)

// WriteFileAtomic replaces path with data so that a reader, or a crash at
// any point, sees either the old file or the new one, never a torn one: the
// data goes to a temporary file in the same directory, is fsynced, renamed
// over path, and the directory is fsynced (where the system has that). The
// directory is created if missing. Everything goes through an [os.Root]:
// a path (or directory) that is a symlink is refused with
// workspace_invalid, never followed, and nothing is written outside the
// directory. Any path DIR/NAME works, the user's configuration files too.
//
// The file is given perm, or the mode of the file it replaces where that
// is tighter (securefile.NotLooser): a rules.json the user made 0600 stays 0600.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return named(securefile.WriteFile(path, data, securefile.NotLooser(path, perm)))
}

// LockFile takes an exclusive lock on path+".lock" (flock on Unix,
// LockFileEx on Windows), creating it through the directory's [os.Root] if
// needed — never through a symlink, so a dangling link there creates
// nothing — serialising read-modify-write cycles across goroutines and
// processes. It waits until ctx is done. The returned function releases
// the lock.
func LockFile(ctx context.Context, path string) (unlock func(), err error) {
	unlock, err = securefile.Lock(ctx, path)
	return unlock, named(err)
}
