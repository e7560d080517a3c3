package mcpserver

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestStateSigner(t *testing.T) {
	s, err := newStateSigner()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	args := `{"url": "https://example.com/"}`
	sealed := s.seal(callState{Root: "/w", Target: "example.com:443"}, args)

	other, err := newStateSigner()
	if err != nil {
		t.Fatal(err)
	}
	other.now = s.now
	payload, _, _ := strings.Cut(sealed, ".")

	tests := []struct {
		name   string
		signer *stateSigner
		sealed string
		args   string
		later  time.Duration
		ok     bool
	}{
		{"as issued", s, sealed, args, 0, true},
		{"just before expiry", s, sealed, args, stateTTL, true},
		{"expired", s, sealed, args, stateTTL + time.Second, false},
		{"other arguments", s, sealed, `{"url": "https://example.org/"}`, 0, false},
		{"arguments re-spaced", s, sealed, `{"url":"https://example.com/"}`, 0, false},
		{"another process's key", other, sealed, args, 0, false},
		{"no signature", s, payload, args, 0, false},
		{"payload swapped", s, other.seal(callState{Target: "evil.example:443"}, args), args, 0, false},
		{"empty", s, "", args, 0, false},
		{"garbage", s, "%%%.%%%", args, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := now
			tc.signer.now = func() time.Time { return base.Add(tc.later) }
			defer func() { tc.signer.now = func() time.Time { return now } }()
			st, ok := tc.signer.open(tc.sealed, tc.args)
			if ok != tc.ok {
				t.Fatalf("open ok = %v; want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if st.Nonce == "" {
				t.Error("state has no nonce")
			}
			want := callState{Root: "/w", Target: "example.com:443", Args: argsDigest(args), Expires: now.Add(stateTTL).Unix(), Nonce: st.Nonce}
			if diff := cmp.Diff(want, st); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStateConsume: an answered state is accepted once; used nonces are
// forgotten only once their state has expired, and a full set fails closed.
func TestStateConsume(t *testing.T) {
	s, err := newStateSigner()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	args := `{"url": "https://example.com/"}`
	a, _ := s.open(s.seal(callState{Target: "example.com:443"}, args), args)
	b, _ := s.open(s.seal(callState{Target: "example.com:443"}, args), args)
	if a.Nonce == b.Nonce {
		t.Fatalf("two seals share the nonce %q", a.Nonce)
	}
	steps := []struct {
		name string
		st   callState
		want bool
	}{
		{"first answer", a, true},
		{"replayed", a, false},
		{"replayed again", a, false},
		{"another state", b, true},
		{"no nonce", callState{Target: "example.com:443"}, false},
	}
	for _, st := range steps {
		if got := s.consume(st.st); got != st.want {
			t.Errorf("%s: consume = %v; want %v", st.name, got, st.want)
		}
	}

	// Fill the set: the next answer fails closed until entries expire.
	for i := len(s.used); i < maxUsedNonces; i++ {
		s.used[fmt.Sprint("filler-", i)] = now.Add(stateTTL).Unix()
	}
	c, _ := s.open(s.seal(callState{Target: "example.com:443"}, args), args)
	if s.consume(c) {
		t.Error("consume with a full set of unexpired nonces = true; want false")
	}
	now = now.Add(stateTTL + time.Second)
	c.Expires = now.Add(stateTTL).Unix()
	if !s.consume(c) {
		t.Error("consume after the set expired = false; want true")
	}
	if len(s.used) != 1 {
		t.Errorf("%d nonces remembered after expiry; want 1", len(s.used))
	}
}

// FuzzStateOpen: request state comes from the client. Opening anything but
// a state this signer sealed for these arguments fails, and never panics.
func FuzzStateOpen(f *testing.F) {
	s, err := newStateSigner()
	if err != nil {
		f.Fatal(err)
	}
	good := s.seal(callState{Root: "/w", Target: "example.com:443"}, "{}")
	f.Add(good, "{}")          // the one valid state
	f.Add(good+"x", "{}")      // signature altered
	f.Add("e30.e30", "{}")     // "{}" payload, bogus signature
	f.Add("", "")              // nothing
	f.Add("....", "{}")        // separators only
	f.Add(good, `{"url":"x"}`) // other arguments
	f.Fuzz(func(t *testing.T, sealed, args string) {
		st, ok := s.open(sealed, args)
		if !ok {
			return
		}
		if sealed != good || args != "{}" {
			// A different encoding of the same signed payload cannot
			// exist: the MAC covers the payload bytes.
			t.Fatalf("open(%q, %q) accepted a state this signer did not issue: %+v", sealed, args, st)
		}
	})
}
