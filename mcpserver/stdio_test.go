package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// stdioSession is a raw JSON-RPC client on Serve's stdio transport, with a
// watchdog: a server that stops answering fails the test instead of
// hanging it.
type stdioSession struct {
	*rawClient
	stdin io.Closer
	done  chan error
	timer *time.Timer
}

func startStdio(t *testing.T, opts *Options, protocol string) *stdioSession {
	t.Helper()
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	rec := &lineRecorder{w: s2cW}
	opts.Stdin, opts.Stdout = c2sR, rec
	done := make(chan error, 1)
	go func() {
		err := Serve(context.Background(), opts)
		s2cW.Close()
		done <- err
	}()
	// Like a real client's OS pipe, stdout is read eagerly: the server
	// never waits on the client to read before it reads on.
	eager := &eagerReader{}
	eager.cond = sync.NewCond(&eager.mu)
	go eager.fill(s2cR)
	s := &stdioSession{
		rawClient: &rawClient{t: t, in: c2sW, out: bufio.NewReader(eager)},
		stdin:     c2sW,
		done:      done,
		timer: time.AfterFunc(30*time.Second, func() {
			s2cR.CloseWithError(fmt.Errorf("no answer within 30s"))
		}),
	}
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, protocol))
	s.await(`"init"`, nil)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	t.Cleanup(func() {
		s.timer.Stop()
		rec.checkProtocolOnly(t)
	})
	return s
}

// eagerReader buffers everything written to a pipe as it comes.
type eagerReader struct {
	mu   sync.Mutex
	cond *sync.Cond
	buf  bytes.Buffer
	err  error
}

func (e *eagerReader) fill(r io.Reader) {
	b := make([]byte, 32<<10)
	for {
		n, err := r.Read(b)
		e.mu.Lock()
		e.buf.Write(b[:n])
		if err != nil {
			e.err = err
		}
		e.cond.Broadcast()
		e.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (e *eagerReader) Read(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for e.buf.Len() == 0 && e.err == nil {
		e.cond.Wait()
	}
	if e.buf.Len() > 0 {
		return e.buf.Read(p)
	}
	return 0, e.err
}

// close ends the session by closing stdin and checks that Serve ended cleanly.
func (s *stdioSession) close() {
	s.t.Helper()
	s.stdin.Close()
	if err := <-s.done; err != nil {
		s.t.Errorf("Serve = %v; want nil", err)
	}
}

type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (m rawMsg) rpcError(t *testing.T) rpcError {
	t.Helper()
	var e rpcError
	if m.Error == nil {
		t.Fatalf("result %s; want a JSON-RPC error", m.Result)
	}
	if err := json.Unmarshal(m.Error, &e); err != nil {
		t.Fatalf("error %s: %v", m.Error, err)
	}
	return e
}

// TestStdioSurvivesAnyLine sends each kind of line the SDK cannot decode,
// expects the JSON-RPC error the specification prescribes for it, and then
// a next call still answered.
func TestStdioSurvivesAnyLine(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 1000) + `1` + strings.Repeat(`}`, 1000)
	tests := []struct {
		name     string
		line     string
		wantID   string
		wantCode int64
	}{
		{"not JSON", `hello`, "null", -32700},
		{"truncated JSON", `{"jsonrpc":"2.0","id":3,"method":`, "null", -32700},
		{"two values on a line", `{"jsonrpc":"2.0","id":3,"method":"ping"}{}`, "null", -32700},
		{"bad UTF-8 in JSON is still JSON", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}", "3", 0},
		{"a number", `42`, "null", -32600},
		{"a string", `"ping"`, "null", -32600},
		{"null", `null`, "null", -32600},
		{"wrong version", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, "7", -32600},
		{"no method, no id", `{"jsonrpc":"2.0"}`, "null", -32600},
		{"method not a string", `{"jsonrpc":"2.0","id":"x","method":5}`, `"x"`, -32600},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null", -32600},
		{"tool arguments 1,000 deep", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"fetch","arguments":{"url":` + deep + `}}}`, "8", -32600},
		{"a bare 1,000-deep array", strings.Repeat("[", 1000) + strings.Repeat("]", 1000), "null", -32600},
		{"empty batch", `[]`, "null", -32600},
		{"batch on a protocol without batches", `[{"jsonrpc":"2.0","id":9,"method":"ping"}]`, "null", -32600},
		{"too long", `{"jsonrpc":"2.0","id":10,"method":"ping","params":{"x":"` + strings.Repeat("a", 20000) + `"}}`, "null", -32600},
	}
	ws := testws.New(t, testws.Spec{Profile: "standard"})
	s := startStdio(t, &Options{Root: ws.Root, maxLine: 16384}, protoLegacy)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s.t = t
			s.send(tc.line)
			if tc.wantCode == 0 {
				s.await(tc.wantID, nil)
			} else {
				m := s.await(tc.wantID, nil)
				if e := m.rpcError(t); e.Code != tc.wantCode {
					t.Errorf("error code %d (%s); want %d", e.Code, e.Message, tc.wantCode)
				}
			}
			id := fmt.Sprintf(`"after-%d"`, i)
			s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
			if m := s.await(id, nil); m.Error != nil || !strings.Contains(string(m.Result), `"fetch"`) {
				t.Errorf("next call: %s %s; want the tool list", m.Error, m.Result)
			}
		})
	}
	s.t = t
	s.close()
}

// TestStdioLineAtTheLimit: a line of exactly the bound is served, one byte
// more is refused.
func TestStdioLineAtTheLimit(t *testing.T) {
	ws := testws.New(t, testws.Spec{Profile: "standard"})
	const limit = 2048
	s := startStdio(t, &Options{Root: ws.Root, maxLine: limit}, protoLegacy)
	msg := func(id string, n int) string {
		head := `{"jsonrpc":"2.0","id":"` + id + `","method":"ping","params":{"_meta":{"x":"`
		tail := `"}}}`
		return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
	}
	s.send(msg("fits", limit) + "\r")
	if m := s.await(`"fits"`, nil); m.Error != nil {
		t.Errorf("line of %d bytes: %s; want it served", limit, m.Error)
	}
	s.send(msg("over", limit+1))
	if e := s.await("null", nil).rpcError(t); e.Code != -32600 {
		t.Errorf("line of %d bytes: code %d; want -32600", limit+1, e.Code)
	}
	s.close()
}

// TestStdioResponsesDueAreWritten: a call in flight when a bad line arrives
// is still answered.
func TestStdioResponsesDueAreWritten(t *testing.T) {
	srv, port := pageServer(t)
	ws := localWorkspace(t, port, fmt.Sprintf("127.0.0.1:%d", port))
	s := startStdio(t, &Options{Root: ws.Root}, protoLegacy)
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch","arguments":{"url":%q}}}`, srv.URL))
	s.send(`this is not JSON`)
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fetch","arguments":{"url":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}}}`)
	got := map[string]string{}
	for len(got) < 3 {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("reading: %v (got %v)", err, got)
		}
		var m rawMsg
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		got[string(m.ID)] = string(m.Result) + string(m.Error)
	}
	if !strings.Contains(got["2"], pageMarker) {
		t.Errorf("call 2: %.200s; want the page", got["2"])
	}
	if !strings.Contains(got["null"], "-32700") {
		t.Errorf("bad line: %s; want -32700", got["null"])
	}
	if !strings.Contains(got["3"], "-32600") {
		t.Errorf("deep call: %s; want -32600", got["3"])
	}
	s.close()
}

// TestStdioBatchOnOldProtocol: batches stay served on protocol versions that
// have them; a member the SDK cannot decode, or a repeated id, is refused
// instead of ending the session.
func TestStdioBatchOnOldProtocol(t *testing.T) {
	ws := testws.New(t, testws.Spec{Profile: "standard"})
	s := startStdio(t, &Options{Root: ws.Root}, "2025-03-26")
	s.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`)
	line, err := s.out.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var batch []rawMsg
	if err := json.Unmarshal(line, &batch); err != nil || len(batch) != 2 {
		t.Fatalf("batch answer %s: %v; want two responses", line, err)
	}
	// In the order of the requests, whichever was answered first.
	if got := string(batch[0].ID) + "," + string(batch[1].ID); got != "1,2" {
		t.Errorf("batch answer ids %s; want 1,2", got)
	}
	// Answered requests may be sent again in a new batch.
	s.send(`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	if line, err = s.out.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(line, &batch); err != nil || len(batch) != 2 || string(batch[0].ID) != "2" || string(batch[1].ID) != "1" {
		t.Fatalf("second batch answer %s: %v; want the responses to ids 2 and 1", line, err)
	}
	s.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"1.0","id":2,"method":"ping"}]`)
	if e := s.await("null", nil).rpcError(t); e.Code != -32600 {
		t.Errorf("bad member: code %d; want -32600", e.Code)
	}
	s.send(`[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`)
	if e := s.await("null", nil).rpcError(t); e.Code != -32600 {
		t.Errorf("repeated id: code %d; want -32600", e.Code)
	}
	s.send(`{"jsonrpc":"2.0","id":"next","method":"ping"}`)
	if m := s.await(`"next"`, nil); m.Error != nil {
		t.Errorf("next call: %s", m.Error)
	}
	s.close()
}

// FuzzStdioLines drives the stdio transport with arbitrary input between
// valid calls: whatever the input, the call after it is answered and
// every line written is a JSON-RPC message. No rule covers any target and
// the client cannot be asked, so a fuzzed tools/call never dials.
func FuzzStdioLines(f *testing.F) {
	for _, s := range []string{
		`hello`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fetch","arguments":{"url":"https://example.com/"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\n\r\n{",
		`{"jsonrpc":"2.0","id":"\u0000","method":"initialize","params":{}}`,
		"\xff\xfe",
	} {
		f.Add(s)
	}
	ws := testws.New(f, testws.Spec{Profile: "standard"})
	f.Fuzz(func(t *testing.T, input string) {
		s := startStdio(t, &Options{Root: ws.Root, maxLine: 1024}, protoLegacy)
		for i := range 2 {
			s.send(input)
			id := fmt.Sprintf(`"fuzz-check-%d"`, i)
			s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
			if m := s.await(id, func(string) string { return `"error":{"code":-32601,"message":"no"}` }); m.Error != nil {
				t.Fatalf("call after %q: %s; want the tool list", input, m.Error)
			}
		}
		s.close()
	})
}
