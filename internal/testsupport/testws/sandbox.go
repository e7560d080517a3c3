package testws

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/workspace"
)

// SandboxUser is the uid and gid [SandboxReady] gives a workspace to: an
// id no account on a test machine has.
const SandboxUser = 54321

// SandboxReady makes ws a workspace the command of `ocfetch run`'s
// sandbox can use when the test runs as root, and returns it. As root the
// sandbox runs the command as an ordinary user — the workspace's owner
// when that is not root — and refuses a workspace that user cannot enter
// and write (a t.TempDir is root's, 0700), so the directory is given to
// [SandboxUser], made writable by all (for a test run through sudo, whose
// command runs as the user who ran it), and the temporary directories
// above it are opened for search. For an ordinary user it does nothing.
func SandboxReady(t testing.TB, ws workspace.Workspace) workspace.Workspace {
	t.Helper()
	if err := GiveToSandboxUser(ws.Root); err != nil {
		t.Fatal(err)
	}
	return ws
}

// GiveToSandboxUser is [SandboxReady] for a directory (a testscript's
// $WORK).
func GiveToSandboxUser(dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	if err := os.Chown(dir, SandboxUser, SandboxUser); err != nil {
		return err
	}
	// Open to every user too, for a test run through sudo: the command
	// then runs as the user who ran sudo (SUDO_UID), not the owner.
	if err := os.Chmod(dir, 0o777); err != nil {
		return err
	}
	return OpenForSearch(filepath.Dir(dir))
}

// OpenForSearch lets every user search dir and the directories above it
// up to the system temporary directory (a test's temporary directories
// are 0700), when the test runs as root: the sandbox's command, an
// ordinary user then, can reach what is in them (a workspace, the
// ocfetch binary a testscript puts on PATH). Directories outside the
// temporary directory are left alone.
func OpenForSearch(dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	tmp := filepath.Clean(os.TempDir())
	for d := filepath.Clean(dir); strings.HasPrefix(d, tmp+string(filepath.Separator)); d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		if err := os.Chmod(d, fi.Mode().Perm()|0o111); err != nil {
			return err
		}
	}
	return nil
}
