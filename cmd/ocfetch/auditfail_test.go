package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
)

// TestGetAuditUnavailable: an audit log that is a directory refuses get
// with audit_unavailable (exit 3) naming the file, and nothing is sent.
func TestGetAuditUnavailable(t *testing.T) {
	s := newSite(t)
	root := localRoot(t, s)
	ws := wsOf(t, root)
	if err := os.Mkdir(ws.AuditPath(), 0o755); err != nil {
		t.Fatal(err)
	}
	before := len(s.requests())
	r := ocfetch(t, cliOptions{}, "--root", root, "--profile", "permissive", "get", s.url("/"))
	r.want(t, exitRefused, nil, []string{"audit_unavailable", ws.AuditPath()})
	if n := len(s.requests()) - before; n != 0 {
		t.Errorf("the site got %d requests; want none", n)
	}
}

// TestGetAuditLostAfterCall: when the line cannot be written after the
// call, get still prints the response, and says so on stderr and in its
// exit status.
func TestGetAuditLostAfterCall(t *testing.T) {
	root := newRoot(t)
	ws := wsOf(t, root)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		os.Remove(ws.AuditPath())
		os.Mkdir(ws.AuditPath(), 0o755)
		fmt.Fprint(w, "served")
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	testws.Write(t, ws, testws.Spec{Profile: "permissive", LocalPorts: []uint16{uint16(port)}, Allow: []string{fmt.Sprintf("127.0.0.1:%d", port)}})
	r := ocfetch(t, cliOptions{}, "--root", root, "get", "--format", "raw", fmt.Sprintf("http://127.0.0.1:%d/", port))
	r.want(t, exitRefused, []string{"served"}, []string{"audit_unavailable", ws.AuditPath()})
}
