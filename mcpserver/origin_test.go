package mcpserver

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestForeignOriginRefusedOnEveryMethod: a request whose Origin (or
// Sec-Fetch-Site) says it comes from another site is refused with 403
// whatever its method, as the MCP specification's streamable HTTP
// transport requires ("If the Origin header is present and invalid,
// servers MUST respond with HTTP 403 Forbidden"), the token
// notwithstanding: a GET opening the session's event stream as well as a
// POST. The same request from the server's own origin, or without an
// Origin (a non-browser client), is served.
func TestForeignOriginRefusedOnEveryMethod(t *testing.T) {
	ws := localWorkspace(t, 1)
	addr := serveHTTPForTest(t, &Options{Root: ws.Root})
	c := &rawHTTP{t: t, url: "http://" + addr + "/", client: &http.Client{}}
	defer c.client.CloseIdleConnections()
	tests := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"foreign origin", map[string]string{"Origin": "https://attacker.example"}, http.StatusForbidden},
		{"foreign origin, cross-site", map[string]string{"Origin": "https://attacker.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"another loopback port", map[string]string{"Origin": "http://127.0.0.1:1"}, http.StatusForbidden},
		{"opaque origin", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"cross-site without origin", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"own origin", map[string]string{"Origin": "http://" + addr}, http.StatusOK},
		{"no origin", nil, http.StatusOK},
	}
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		for _, tc := range tests {
			t.Run(method+"/"+tc.name, func(t *testing.T) {
				// A session of its own: a GET that is served opens the
				// session's one event stream, which the server lets go only
				// once it notices the client closed it, and a second GET on
				// the same session meanwhile is refused 409, which is not
				// what this test asks about.
				sid := c.open()
				defer c.delete(sid)
				var body io.Reader
				if method == http.MethodPost {
					body = strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
				}
				req, _ := http.NewRequest(method, c.url, body)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Session-Id", sid)
				req.Header.Set("Mcp-Protocol-Version", protoLegacy)
				req.Header.Set("Authorization", "Bearer "+testToken)
				for k, v := range tc.header {
					req.Header.Set(k, v)
				}
				resp, err := c.client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				// An event stream does not end: close it unread.
				resp.Body.Close()
				if resp.StatusCode != tc.want {
					t.Errorf("%s with %v: %s; want %d", method, tc.header, resp.Status, tc.want)
				}
			})
		}
	}
}

// TestRefusedRequestClosesNoSession: at the session cap, a request the
// server refuses (a foreign Host, a foreign Origin) closes no idle session
// to make room for a session it will never open.
func TestRefusedRequestClosesNoSession(t *testing.T) {
	ws := localWorkspace(t, 1)
	addr := serveHTTPForTest(t, &Options{Root: ws.Root, MaxSessions: 1})
	c := &rawHTTP{t: t, url: "http://" + addr + "/", client: &http.Client{}}
	defer c.client.CloseIdleConnections()
	for _, tc := range []struct {
		name   string
		host   string
		header map[string]string
	}{
		{name: "rebinding host", host: "attacker.example:80"},
		{name: "foreign origin", header: map[string]string{"Origin": "https://attacker.example", "Sec-Fetch-Site": "cross-site"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sid := c.open()
			req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+protoLegacy+`","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+testToken)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := c.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("status %s; want 403", resp.Status)
			}
			if got := c.ping(sid); got != http.StatusOK {
				t.Errorf("ping of the open session after a refused request: %d; want 200 (still open)", got)
			}
		})
	}
}
