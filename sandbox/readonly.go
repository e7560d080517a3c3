package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
)

// readOnlyHint is what a refused change inside the sandbox says to do.
const readOnlyHint = "run this ocfetch command in your own shell, outside `ocfetch run` (an AI agent should ask the user to run it)"

// CheckPolicyWritable is what every command that changes a file deciding
// or recording the network calls before it writes file: inside `ocfetch
// run` those files are read-only (the sandbox's mounts enforce it), and
// the command says so by name instead of failing with "read-only file
// system": a *refusal.Error with code policy_read_only, else nil. The
// check is the directory's writability as the kernel reports it (EROFS
// from a read-only mount; with [MarkerEnv] set, also a permission
// refusal): the marker alone never refuses.
func CheckPolicyWritable(file string) error {
	dir := file
	if fi, err := os.Lstat(file); err != nil || !fi.IsDir() {
		dir = filepath.Dir(file)
	}
	// The nearest directory that exists is where the write would land.
	for {
		if _, err := os.Lstat(dir); err == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	if err := writeAccess(dir); err != nil {
		if r := policyReadOnly(file, err); r != nil {
			return r
		}
	}
	return nil
}

// policyReadOnly returns the policy_read_only refusal for a write to file
// that failed with err, or nil when err is not the sandbox's doing.
func policyReadOnly(file string, err error) *refusal.Error {
	conf, inside := os.LookupEnv(MarkerEnv)
	switch {
	case errors.Is(err, syscall.EROFS):
	case inside && (errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)):
	default:
		return nil
	}
	where := "on a read-only file system"
	if inside {
		where = "read-only inside `ocfetch run` (sandbox: " + safetext.Line(conf) + ")"
	}
	return refusal.Newf(refusal.PolicyReadOnly,
		"rules cannot be changed from in here: %s is %s, so that a command run in the sandbox cannot grant itself network access or rewrite the audit log",
		safetext.Line(file), where).WithHint(readOnlyHint).Wrap(err)
}

// AsPolicyReadOnly turns a write that failed on a read-only file system
// inside the sandbox ([MarkerEnv] set) into a policy_read_only
// *refusal.Error, for the writes that [CheckPolicyWritable] did not
// foresee (a lock file, a rename); any other err is returned as it is.
func AsPolicyReadOnly(err error) error {
	if err == nil || !errors.Is(err, syscall.EROFS) {
		return err
	}
	if _, inside := os.LookupEnv(MarkerEnv); !inside {
		return err
	}
	if _, ok := refusal.As(err); ok && refusal.CodeOf(err) == refusal.PolicyReadOnly {
		return err
	}
	return refusal.Newf(refusal.PolicyReadOnly,
		"rules cannot be changed from in here: %s (read-only inside `ocfetch run`, so that a command run in the sandbox cannot grant itself network access)",
		safetext.Line(err.Error())).WithHint(readOnlyHint).Wrap(err)
}
