package proxy

import (
	"testing"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
)

// TestInvalidHeaderFieldsRefused: a request head whose header name or
// value is not valid HTTP — white space between a name and its colon
// (RFC 9112 §5.1: a 400, since "Transfer-Encoding : chunked" is how
// requests are smuggled past a reader that ignores the field), or a
// control character in a value — is refused 400 invalid_arguments before
// anything is decided or dialled, as net/http's server refuses it. Before,
// http.ReadRequest let it through, the upstream transport refused to
// write it, and the client was told 502 connection_failed for a target
// the proxy never tried to connect to.
func TestInvalidHeaderFieldsRefused(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Standard})
	w.rule(rules.Allow, publicHost, 80)
	w.rule(rules.Allow, publicHost, 443)
	const get = "POST http://" + publicHost + "/echo HTTP/1.1\r\nHost: " + publicHost + "\r\n"
	const connect = "CONNECT " + publicHost + ":443 HTTP/1.1\r\nHost: " + publicHost + ":443\r\n"
	tests := []struct {
		name string
		head string
	}{
		{"space before the colon of Transfer-Encoding", get + "Transfer-Encoding : chunked\r\nContent-Length: 5\r\n\r\nhello"},
		{"space before the colon of a custom field", get + "X-Keep : 1\r\n\r\n"},
		{"a control character in a value", get + "X-Keep: a\x01b\r\n\r\n"},
		{"DEL in a value", get + "X-Keep: a\x7fb\r\n\r\n"},
		{"CONNECT with space before a colon", connect + "X-Keep : 1\r\n\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := w.raw(tc.head)
			if resp.StatusCode != 400 || refusal.Code(resp.Header.Get(ReasonHeader)) != refusal.InvalidArguments {
				t.Errorf("got %d %q %q; want 400 invalid_arguments", resp.StatusCode, resp.Header.Get(ReasonHeader), body)
			}
		})
	}
	if got := w.dials.List(); len(got) != 0 {
		t.Errorf("requests with invalid header fields dialled %v; want no dial", got)
	}
	// A valid head still goes through.
	resp, body := w.raw(get + "X-Keep: 1\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
	if resp.StatusCode != 200 || body != "hello" {
		t.Errorf("valid request: got %d %q; want 200 hello", resp.StatusCode, body)
	}
}
