package proxy

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
)

// TestParseNormalisesOnce: a request target's host is normalised once by
// its parse (capability.ParseTarget); the target it yields is normalised
// by construction and not normalised again. Not parallel: the count is
// process-wide.
func TestParseNormalisesOnce(t *testing.T) {
	for _, tc := range []struct {
		authority string
		want      string // "" when refused
	}{
		{"Example.COM.:443", "example.com:443"},
		{"[0:0::1]:8080", "[::1]:8080"},
		{"bücher.example:443", "xn--bcher-kva.example:443"},
		{"example.com..:443", ""},
		{"127.1:80", ""},
	} {
		t.Run(tc.authority, func(t *testing.T) {
			count, stop := capability.CountNormalizations()
			defer stop()
			p, rerr := parseConnect(tc.authority)
			if got := p.target.String(); (rerr == nil) != (tc.want != "") || (rerr == nil && got != tc.want) {
				t.Errorf("parseConnect(%q) = %s, %v; want %q", tc.authority, got, rerr, tc.want)
			}
			if n := count(); n != 1 {
				t.Errorf("NormalizeHost ran %d times; want 1", n)
			}
		})
	}
}

// TestRequestNormalisesOnce: a whole proxied request (parse, decision,
// the guard's dial, the audit line) normalises its host once — the parse —
// for an absolute-form request and for a tunnel.
func TestRequestNormalisesOnce(t *testing.T) {
	w := newWorld(t, worldOpts{profile: risk.Permissive})
	site := httptest.NewServer(http.HandlerFunc(echoHandler))
	defer site.Close()
	port := localPort(t, site)
	w.allowLocal(uint16(port))
	w.rule(rules.Allow, "localhost", port)
	target := "localhost:" + strconv.Itoa(port)
	connect := func() int {
		c, err := net.DialTimeout("tcp", w.addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, connectHead(target)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	get := func() int {
		resp, _ := w.raw("GET http://" + target + "/ HTTP/1.1\r\nHost: " + target + "\r\nConnection: close\r\n\r\n")
		return resp.StatusCode
	}
	// The audit log's lines, counted without decoding them (audit.Read
	// validates each line's target, which would count).
	auditLines := func(n int) {
		deadline := time.Now().Add(5 * time.Second)
		for {
			data, _ := os.ReadFile(w.ws.AuditPath())
			if bytes.Count(data, []byte("\n")) >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the audit log holds fewer than %d lines", n)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// A first request reads rules.json (one normalisation per rule it
	// holds, once per change of the file): not counted.
	if status := get(); status != http.StatusOK {
		t.Fatalf("status %d; want 200", status)
	}
	lines := 1
	auditLines(lines)
	for _, tc := range []struct {
		name string
		do   func() int
	}{
		{"absolute-form GET", get},
		{"CONNECT", connect},
	} {
		t.Run(tc.name, func(t *testing.T) {
			count, stop := capability.CountNormalizations()
			defer stop()
			if status := tc.do(); status != http.StatusOK {
				t.Fatalf("status %d; want 200", status)
			}
			lines++
			auditLines(lines) // the audit line is part of the request
			if n := count(); n != 1 {
				t.Errorf("NormalizeHost ran %d times for one request; want 1 (the parse)", n)
			}
		})
	}
}
