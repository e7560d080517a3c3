package fetch

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/workspace"
	"go.uber.org/goleak"
)

// harness is a Fetch in local mode (permissive profile, a temporary
// workspace) over the real guarded client of egress.NewClient, with loopback
// httptest servers whose ports it allowlists. When the test ends it closes
// the servers and the client's idle connections and fails the test if any
// goroutine the test started is still alive: no goroutine outlives a call.
type harness struct {
	t      *testing.T
	client *http.Client
	f      *Fetch
	ws     workspace.Workspace
	ports  []uint16
}

func newHarness(t *testing.T, opts *Options) *harness {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	h := &harness{t: t, ws: newWorkspace(t)}
	h.client = egress.NewClient(&egress.Options{Timeout: 10 * time.Second})
	o := Options{}
	if opts != nil {
		o = *opts
	}
	h.f = newFetch(h.client, &o, h.ws, risk.Permissive)
	t.Cleanup(func() {
		h.client.CloseIdleConnections()
		goleak.VerifyNone(t, ignore)
	})
	return h
}

// serve starts a loopback server for handler, allowlists its port and
// returns its base URL ("http://127.0.0.1:PORT") and port.
func (h *harness) serve(handler http.Handler) (string, uint16) {
	h.t.Helper()
	srv := httptest.NewServer(handler)
	h.t.Cleanup(srv.Close)
	port := serverPort(h.t, srv)
	h.ports = append(h.ports, port)
	writeAllowlist(h.t, h.ws, h.ports...)
	return srv.URL, port
}

func serverPort(t testing.TB, srv *httptest.Server) uint16 {
	t.Helper()
	ap, err := netip.ParseAddrPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return ap.Port()
}

func portString(p uint16) string { return strconv.Itoa(int(p)) }
