package socks5

import (
	"bytes"
	"testing"

	"github.com/ocfetch/ocfetch/refusal"
)

func TestReplyFor(t *testing.T) {
	tests := []struct {
		code refusal.Code
		want byte
	}{
		{refusal.NotApproved, NotAllowed},
		{refusal.DeniedByRule, NotAllowed},
		{refusal.AddressNotPublic, NotAllowed},
		{refusal.ProxyAuthRequired, NotAllowed},
		{refusal.ConnectionFailed, ConnectionRefused},
		{refusal.Timeout, TTLExpired},
		{refusal.InvalidArguments, GeneralFailure},
		{refusal.TooManyConnections, GeneralFailure},
	}
	for _, tc := range tests {
		if got := ReplyFor(refusal.New(tc.code, "x")); got != tc.want {
			t.Errorf("%s: got %#x; want %#x", tc.code, got, tc.want)
		}
	}
}

// TestReply: a reply names the bound address 0.0.0.0:0, never the
// server's outbound address.
func TestReply(t *testing.T) {
	want := []byte{5, NotAllowed, 0, AtypIPv4, 0, 0, 0, 0, 0, 0}
	if got := Reply(NotAllowed); !bytes.Equal(got, want) {
		t.Errorf("got %x; want %x", got, want)
	}
}
