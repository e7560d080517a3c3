package shellrun

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/reexec"
	"github.com/ocfetch/ocfetch/internal/testsupport/testchild"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/workspace"
)

func TestMain(m *testing.M) {
	reexec.Init() // the sandbox's part, when a test runs a sandboxed command
	testchild.QuickRaceExit()
	goleak.VerifyTestMain(m)
}

// bareScope is a scope for a fresh workspace the sandbox's user can use,
// with its own layer files (no managed policy, no user rules).
func bareScope(t *testing.T) *scope.Scope {
	t.Helper()
	return &scope.Scope{Workspace: testws.SandboxReady(t, testws.Bare(t)), Layers: testlayers.New(t).Layers}
}

// site is a loopback web server that a workspace admits: local mode for
// its port (profile permissive) and an allow rule for localhost:port.
type site struct {
	*httptest.Server
	port int
}

// allowedSite starts a site answering "hello from <host>", admits it in
// a fresh trusted workspace and returns the scope and audit log of that
// workspace.
func allowedSite(t *testing.T, h http.HandlerFunc) (*site, *scope.Scope, *audit.Log) {
	t.Helper()
	if h == nil {
		h = func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "hello from %s", r.Host) }
	}
	ws := testws.SandboxReady(t, testws.Bare(t))
	if err := ws.EnsureDir(); err != nil {
		t.Fatal(err)
	}
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	_, p, _ := net.SplitHostPort(s.Listener.Addr().String())
	port, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := localfetch.WriteAllowedPorts(ws, localfetch.NewPorts(uint16(port))); err != nil {
		t.Fatal(err)
	}
	addRule(t, ws, rules.Allow, "localhost", port)
	sc := &scope.Scope{Workspace: ws, Layers: testlayers.New(t, ws).Layers, Profile: risk.Permissive}
	return &site{Server: s, port: port}, sc, audit.Open(ws)
}

// addRule saves a rule for host:port in ws.
func addRule(t *testing.T, ws workspace.Workspace, d rules.Decision, host string, port int) {
	t.Helper()
	p, err := capability.ParseHostPattern(host)
	if err != nil {
		t.Fatal(err)
	}
	if err := rules.Add(context.Background(), ws, rules.NewRule(d, p, uint16(port))); err != nil {
		t.Fatal(err)
	}
}

// waitAudit waits until ws's audit log holds n entries: a line is written
// when a tunnel or request ends, which the client may see a moment before.
func waitAudit(t *testing.T, ws workspace.Workspace, n int) []audit.Entry {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		es, err := audit.Read(ws, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) >= n || time.Now().After(deadline) {
			return es
		}
		time.Sleep(5 * time.Millisecond)
	}
}
