package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/refusal"
)

// refusedPort returns a loopback address nothing listens on, nor can
// until the test ends.
func refusedPort(t *testing.T) string {
	t.Helper()
	return "127.0.0.1:" + strconv.Itoa(int(testnet.RefusedPort(t)))
}

func TestFailureCause(t *testing.T) {
	var d net.Dialer
	_, refused := d.DialContext(context.Background(), "tcp", refusedPort(t))
	for _, tc := range []struct {
		name string
		err  error
		want Cause
	}{
		{"a real refused dial", refused, CauseRefused},
		{"no such host", &net.DNSError{Err: "no such host", Name: "nx.example", IsNotFound: true}, CauseNoSuchHost},
		{"wrapped errno", fmt.Errorf("dial: %w", &net.OpError{Op: "dial", Err: errors.Join(errors.New("x"), errnoFor(CauseNoRoute))}), CauseNoRoute},
		{"reset", &net.OpError{Op: "read", Err: errnoFor(CauseReset)}, CauseReset},
		{"unknown", errors.New("connection refused"), ""}, // text is never read
		{"nil", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FailureCause(tc.err); got != tc.want {
				t.Errorf("FailureCause(%v) = %q; want %q", tc.err, got, tc.want)
			}
		})
	}
}

// errnoFor returns this platform's errno for a cause.
func errnoFor(c Cause) syscall.Errno {
	for e := syscall.Errno(1); e < 20000; e++ {
		if errnoCause(e) == c {
			return e
		}
	}
	panic("no errno for " + c)
}

func TestExplainFailure(t *testing.T) {
	refused := &net.OpError{Op: "dial", Err: errnoFor(CauseRefused)}
	base := refusal.New(refusal.ConnectionFailed, "cannot connect to 127.0.0.1:8769")
	for _, tc := range []struct {
		name      string
		r         *refusal.Error
		local     bool
		msg, hint string
	}{
		{"local refused", base.Wrap(refused), true, "cannot connect to 127.0.0.1:8769: connection refused", "is a server listening on port 8769?"},
		{"public refused", base.Wrap(refused), false, "cannot connect to 127.0.0.1:8769: connection refused", "check the port"},
		{"no such host", refusal.New(refusal.ConnectionFailed, "cannot resolve nx.example").Wrap(&net.DNSError{Name: "nx.example", IsNotFound: true}), false,
			"cannot resolve nx.example: no such host", "check its spelling"},
		// DNS itself unreachable: the name may exist; no spelling advice,
		// and the resolver's refused socket is not the target's.
		{"DNS timeout", refusal.New(refusal.ConnectionFailed, "cannot resolve example.org").Wrap(&net.DNSError{Name: "example.org", Err: "i/o timeout", IsTimeout: true}), false,
			"cannot resolve example.org: DNS unreachable", "no DNS server answered"},
		{"DNS temporary", refusal.New(refusal.ConnectionFailed, "cannot resolve example.org").Wrap(&net.DNSError{Name: "example.org", Err: "Temporary failure in name resolution", IsTemporary: true, IsNotFound: true}), false,
			"cannot resolve example.org: DNS unreachable", "no DNS server answered"},
		{"DNS server refused", refusal.New(refusal.ConnectionFailed, "cannot resolve example.org").Wrap(&net.DNSError{Name: "example.org", Err: "connection refused", UnwrapErr: errnoFor(CauseRefused)}), false,
			"cannot resolve example.org: DNS unreachable", "check this machine's network and DNS settings"},
		{"hint kept", base.WithHint("mine").Wrap(refused), false, "cannot connect to 127.0.0.1:8769: connection refused", "mine"},
		{"unknown cause", base.Wrap(errors.New("eh")), false, "cannot connect to 127.0.0.1:8769", ""},
		{"other code", refusal.New(refusal.Timeout, "slow").Wrap(refused), true, "slow", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ExplainFailure(tc.r, tc.local, 8769)
			if got.Message != tc.msg || !strings.Contains(got.Hint, tc.hint) || (tc.hint == "" && got.Hint != "") ||
				(strings.Contains(tc.name, "DNS") && strings.Contains(got.Hint, "spelling")) {
				t.Errorf("got %q / %q; want %q / %q", got.Message, got.Hint, tc.msg, tc.hint)
			}
			if got.Code != tc.r.Code || !errors.Is(got, tc.r.Err) && tc.r.Err != nil {
				t.Errorf("code %s or cause lost", got.Code)
			}
		})
	}
	if ExplainFailure(nil, false, 1) != nil {
		t.Error("ExplainFailure(nil) is not nil")
	}
}
