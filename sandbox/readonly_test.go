package sandbox

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/ocfetch/ocfetch/refusal"
)

// TestPolicyReadOnly: a write refused by a read-only mount, or inside the
// sandbox by a permission refusal, is policy_read_only naming the file
// with the hint to run the command outside; any other failure is not.
func TestPolicyReadOnly(t *testing.T) {
	const file = "/ws/.oc_chat/rules.json"
	for _, tc := range []struct {
		name   string
		marker bool
		err    error
		want   bool
	}{
		{"read-only mount", false, syscall.EROFS, true},
		{"read-only mount inside", true, fmt.Errorf("open: %w", syscall.EROFS), true},
		{"permission inside", true, syscall.EACCES, true},
		{"permission outside", false, syscall.EACCES, false},
		{"another failure inside", true, syscall.ENOENT, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.marker {
				t.Setenv(MarkerEnv, "landlock+mount-namespace")
			}
			r := policyReadOnly(file, tc.err)
			if !tc.want {
				if r != nil {
					t.Fatalf("policyReadOnly(%v) = %v; want nil", tc.err, r)
				}
				return
			}
			if r == nil || r.Code != refusal.PolicyReadOnly || r.Hint != readOnlyHint || !errors.Is(r, tc.err) {
				t.Fatalf("policyReadOnly(%v) = %v; want policy_read_only wrapping it, with the hint", tc.err, r)
			}
			if want := "rules cannot be changed from in here: " + file; len(r.Message) < len(want) || r.Message[:len(want)] != want {
				t.Errorf("message = %q; want it to start %q", r.Message, want)
			}
		})
	}
}

// TestAsPolicyReadOnly: only EROFS inside the sandbox becomes
// policy_read_only; outside it, and for other errors, err is returned as
// it is, and a policy_read_only refusal is not wrapped twice.
func TestAsPolicyReadOnly(t *testing.T) {
	erofs := fmt.Errorf("rename: %w", syscall.EROFS)
	if got := AsPolicyReadOnly(erofs); got != erofs {
		t.Errorf("outside the sandbox: AsPolicyReadOnly = %v; want err unchanged", got)
	}
	t.Setenv(MarkerEnv, "seatbelt")
	got := AsPolicyReadOnly(erofs)
	if refusal.CodeOf(got) != refusal.PolicyReadOnly || !errors.Is(got, syscall.EROFS) {
		t.Fatalf("inside the sandbox: AsPolicyReadOnly = %v; want policy_read_only wrapping EROFS", got)
	}
	if again := AsPolicyReadOnly(got); again != got {
		t.Errorf("AsPolicyReadOnly(policy_read_only) = %v; want it unchanged", again)
	}
	other := errors.New("disk full")
	if got := AsPolicyReadOnly(other); got != other {
		t.Errorf("AsPolicyReadOnly(%v) = %v; want it unchanged", other, got)
	}
	if got := AsPolicyReadOnly(nil); got != nil {
		t.Errorf("AsPolicyReadOnly(nil) = %v; want nil", got)
	}
}

// TestCheckPolicyWritable: a file in a writable directory, existing or
// not (its nearest existing directory counts), is no refusal.
func TestCheckPolicyWritable(t *testing.T) {
	t.Setenv(MarkerEnv, "landlock+mount-namespace")
	dir := t.TempDir()
	for _, file := range []string{dir, dir + "/rules.json", dir + "/.oc_chat/rules.json"} {
		if err := CheckPolicyWritable(file); err != nil {
			t.Errorf("CheckPolicyWritable(%s) = %v; want nil", file, err)
		}
	}
}
