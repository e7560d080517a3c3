package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// rawClient speaks JSON-RPC lines to Serve's stdio transport by hand, to
// play clients the SDK client cannot: one that declares roots but has no
// roots/list, one whose roots/list fails.
type rawClient struct {
	t   *testing.T
	in  io.Writer
	out *bufio.Reader
}

type rawMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

func (c *rawClient) send(v string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, v+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// await reads messages until the response to id, answering each server
// request with answer(method).
func (c *rawClient) await(id string, answer func(method string) string) rawMsg {
	c.t.Helper()
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("reading: %v", err)
		}
		var m rawMsg
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Fatalf("bad line %q: %v", line, err)
		}
		switch {
		case m.Method != "" && m.ID != nil:
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,%s}`, m.ID, answer(m.Method)))
		case m.Method == "" && string(m.ID) == id:
			return m
		}
	}
}

func TestRootsListFailures(t *testing.T) {
	srv, port := pageServer(t)
	tests := []struct {
		name     string
		answer   string
		wantText string // prefix of the call's text
	}{
		{"no roots/list: current directory", `"error":{"code":-32601,"message":"Method not found"}`, "HTTP 200 OK"},
		{"roots/list fails", `"error":{"code":-32603,"message":"boom"}`, "workspace_invalid: the client declares roots but did not list them"},
		{"roots/list answers garbage", `"result":{"roots":"nope"}`, "workspace_invalid: the client declares roots but did not list them"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := localWorkspace(t, port, fmt.Sprintf("127.0.0.1:%d", port))
			t.Chdir(ws.Root)
			c2sR, c2sW := io.Pipe()
			s2cR, s2cW := io.Pipe()
			done := make(chan error, 1)
			go func() {
				err := Serve(context.Background(), &Options{Stdin: c2sR, Stdout: s2cW})
				s2cW.Close()
				done <- err
			}()
			c := &rawClient{t: t, in: c2sW, out: bufio.NewReader(s2cR)}
			c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"raw","version":"0"}}}`)
			c.await("1", nil)
			c.send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch","arguments":{"url":%q}}}`, srv.URL))
			m := c.await("2", func(method string) string {
				if method != "roots/list" {
					t.Errorf("server asked %s; want roots/list only", method)
				}
				return tc.answer
			})
			var res struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			if m.Error != nil {
				t.Fatalf("protocol error %s; want a result", m.Error)
			}
			if err := json.Unmarshal(m.Result, &res); err != nil || len(res.Content) != 1 {
				t.Fatalf("result %s: %v", m.Result, err)
			}
			if got := res.Content[0].Text; !strings.HasPrefix(got, tc.wantText) {
				t.Errorf("text = %.200q; want it to start with %q", got, tc.wantText)
			}
			// A hint naming an ocfetch command asks the user (the model
			// reads it).
			if got := res.Content[0].Text; strings.HasPrefix(tc.wantText, "workspace_invalid") && !strings.Contains(got, "\nhint: ask the user to start ocfetch mcp with --root DIR") {
				t.Errorf("text = %.300q; want the hint to ask the user to start ocfetch mcp with --root", got)
			}
			c2sW.Close()
			if err := <-done; err != nil {
				t.Errorf("Serve = %v", err)
			}
		})
	}
}

// TestElicitationAnswersOutsideTheSchema: a client's answer that the
// requested schema does not admit is not "nobody could be asked". An
// accept with empty content chose nothing: the question is asked once
// more, and a second empty accept is not_approved saying so. An accept
// naming a value outside the choices ("ONCE") is a deny, as answerOf
// says. Played by a raw client: the SDK's client never sends these.
func TestElicitationAnswersOutsideTheSchema(t *testing.T) {
	srv, port := pageServer(t)
	target := fmt.Sprintf("127.0.0.1:%d", port)
	tests := []struct {
		name     string
		answers  []string // the elicitation results, in order
		wantText string   // prefix of the call's text
	}{
		{"empty content twice", []string{`{"action":"accept","content":{}}`, `{"action":"accept","content":{}}`},
			"not_approved: " + target + " was not approved: the client accepted the question without choosing an answer"},
		{"empty content, then once", []string{`{"action":"accept","content":{}}`, `{"action":"accept","content":{"decision":"once"}}`},
			"HTTP 200 OK"},
		{"a value outside the choices", []string{`{"action":"accept","content":{"decision":"ONCE"}}`},
			"not_approved: " + target + " was denied by the user"},
		{"a decision of the wrong type", []string{`{"action":"accept","content":{"decision":1}}`},
			"not_approved: " + target + " was denied by the user"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := localWorkspace(t, port)
			c2sR, c2sW := io.Pipe()
			s2cR, s2cW := io.Pipe()
			done := make(chan error, 1)
			go func() {
				err := Serve(context.Background(), &Options{Root: ws.Root, Stdin: c2sR, Stdout: s2cW})
				s2cW.Close()
				done <- err
			}()
			c := &rawClient{t: t, in: c2sW, out: bufio.NewReader(s2cR)}
			c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"raw","version":"0"}}}`)
			c.await("1", nil)
			c.send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch","arguments":{"url":%q}}}`, srv.URL))
			asked := 0
			m := c.await("2", func(method string) string {
				if method != "elicitation/create" {
					t.Errorf("server asked %s; want elicitation/create only", method)
					return `"error":{"code":-32601,"message":"Method not found"}`
				}
				asked++
				if asked > len(tc.answers) {
					t.Errorf("asked %d times; want %d", asked, len(tc.answers))
					return `"result":{"action":"decline"}`
				}
				return `"result":` + tc.answers[asked-1]
			})
			if asked != len(tc.answers) {
				t.Errorf("asked %d times; want %d", asked, len(tc.answers))
			}
			var res struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			if m.Error != nil {
				t.Fatalf("protocol error %s; want a result", m.Error)
			}
			if err := json.Unmarshal(m.Result, &res); err != nil || len(res.Content) == 0 {
				t.Fatalf("result %s: %v", m.Result, err)
			}
			if got := res.Content[0].Text; !strings.HasPrefix(got, tc.wantText) {
				t.Errorf("text = %.300q; want it to start with %q", got, tc.wantText)
			}
			c2sW.Close()
			if err := <-done; err != nil {
				t.Errorf("Serve = %v", err)
			}
		})
	}
}
