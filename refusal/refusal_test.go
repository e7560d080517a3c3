package refusal_test

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/refusal"
)

func TestErrorNeverPrintsItsCause(t *testing.T) {
	cause := &url.Error{Op: "Get", URL: "https://example.com/secret-path?token=abc", Err: errors.New("boom")}
	err := refusal.New(refusal.ConnectionFailed, "cannot connect to example.com:443").WithHint("retry later").Wrap(cause)
	if got, want := err.Error(), "connection_failed: cannot connect to example.com:443"; got != want {
		t.Errorf("Error() = %q; want %q", got, want)
	}
	if strings.Contains(fmt.Sprint(err), "secret-path") || strings.Contains(fmt.Sprintf("%v", error(err)), "token") {
		t.Errorf("the cause's URL leaks through fmt: %v", err)
	}
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Errorf("errors.As(*url.Error) = false; want the cause reachable")
	}
	if err.Hint != "retry later" {
		t.Errorf("Hint = %q; want %q", err.Hint, "retry later")
	}
}

func TestIsMatchesByCode(t *testing.T) {
	err := fmt.Errorf("prepare: %w", refusal.Newf(refusal.NotApproved, "%s is not covered", "example.com:443"))
	if !errors.Is(err, refusal.New(refusal.NotApproved, "")) {
		t.Errorf("errors.Is(not_approved) = false; want true")
	}
	if errors.Is(err, refusal.New(refusal.DeniedByRule, "")) {
		t.Errorf("errors.Is(denied_by_rule) = true; want false")
	}
	if got := refusal.CodeOf(err); got != refusal.NotApproved {
		t.Errorf("CodeOf = %q; want not_approved", got)
	}
	if got := refusal.CodeOf(errors.New("plain")); got != "" {
		t.Errorf("CodeOf(plain error) = %q; want empty", got)
	}
}

func TestWithHintAndWrapCopy(t *testing.T) {
	base := refusal.New(refusal.HTTPSRequired, "scheme http is not allowed for example.com")
	hinted := base.WithHint("use https://")
	if base.Hint != "" {
		t.Errorf("WithHint changed the original: %q", base.Hint)
	}
	wrapped := base.Wrap(errors.New("cause"))
	if base.Err != nil || wrapped.Unwrap() == nil {
		t.Errorf("Wrap changed the original or lost the cause")
	}
	if hinted.Code != base.Code || hinted.Message != base.Message {
		t.Errorf("WithHint lost the code or message")
	}
}

func TestPolicyVersusFailure(t *testing.T) {
	policy := []refusal.Code{refusal.InvalidArguments, refusal.SchemeNotAllowed, refusal.HTTPSRequired,
		refusal.CredentialsInURL, refusal.AddressNotPublic, refusal.LocalPortNotAllowed, refusal.NotApproved,
		refusal.DeniedByRule, refusal.RedirectOffTarget, refusal.TooManyRedirects, refusal.RulesInvalid, refusal.SettingsInvalid,
		refusal.AuditUnavailable, refusal.WorkspaceUntrusted, refusal.ManagedPolicyInvalid, refusal.ManagedPolicyForbids,
		refusal.SandboxUnavailable, refusal.ProxyAuthRequired, refusal.SearchNotConfigured}
	failure := []refusal.Code{refusal.Timeout, refusal.TLSError, refusal.ConnectionFailed, refusal.ResponseTooLarge,
		refusal.ResponseHeadersTooLarge, refusal.InternalError, refusal.ContentTooComplex, refusal.Cancelled,
		refusal.SearchBackendFailed, refusal.SearchRateLimited}
	for _, c := range policy {
		if !c.Policy() {
			t.Errorf("%s.Policy() = false; want true (exit 3)", c)
		}
	}
	for _, c := range failure {
		if c.Policy() {
			t.Errorf("%s.Policy() = true; want false (exit 4)", c)
		}
	}
}
