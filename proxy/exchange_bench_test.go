package proxy

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/loopback"
	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/testsupport/testcpu"
	"github.com/ocfetch/ocfetch/internal/testsupport/testlayers"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/scope"
)

// BenchmarkExchange is one small exchange through the proxy as
// bench/proxy/run.sh drives the release binary, in process, so that it
// can be profiled (-cpuprofile, -blockprofile, -mutexprofile): every
// policy layer present (a managed policy with a deny rule, the trust
// store, a user rule, the workspace's settings.json, local_fetch.json and
// rules.json), the proxy's credentials, the audit line written, and the
// guard's own dialer (its Control check) to a loopback origin admitted by
// local mode. Each exchange is a new client connection, from 8 clients at
// once: "connect" is CONNECT, GET, close; "http" an absolute-form GET with
// Connection: close. cpu-ns/op is the whole process's CPU (the clients and
// the origin included), steadier than ns/op on a loaded machine.
//
//	go test ./proxy -run '^$' -bench Exchange -benchtime 5000x -count 3
func BenchmarkExchange(b *testing.B) {
	ws := testws.New(b, testws.Spec{Profile: "permissive"})
	layers := testlayers.New(b, ws)
	layers.WriteManaged(b, `{"schema_version": 1, "max_profile": "permissive",
		"rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "blocked.example", "port": 443}, "decision": "deny"}]}`)
	layers.AddUserRule(b, rules.NewRule(rules.Allow, capability.HostPattern{Host: "example.org"}, 443))

	origin, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "hello, world\n")
	})}
	go hs.Serve(origin)
	b.Cleanup(func() { hs.Close() })
	port := origin.Addr().(*net.TCPAddr).Port
	target := "127.0.0.1:" + strconv.Itoa(port)
	testws.Write(b, ws, testws.Spec{LocalPorts: []uint16{uint16(port)}, Allow: []string{target}})

	creds, err := NewCredentials()
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New(&Options{
		Scope: &scope.Scope{Workspace: ws, Layers: layers.Layers, Profile: risk.Permissive, ProfileFrom: scope.FromSettings},
		Guard: egress.NewGuard(nil), // loopback only: local mode's admitted port
		Audit: audit.Open(ws),
		Auth:  &creds,
	})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := loopback.Listen(context.Background(), "127.0.0.1:0") // as ocfetch proxy listens
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	b.Cleanup(func() {
		srv.Close()
		<-served
	})
	auth := "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(creds.String())) + "\r\n"
	heads := map[string]string{
		"connect": "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n" + auth + "\r\n",
		"http":    "GET http://" + target + "/small HTTP/1.1\r\nHost: " + target + "\r\n" + auth + "Connection: close\r\n\r\n",
	}
	// A file changed within securefile.RacyWindow is read on every call;
	// leave them alone that long, as a user's are between edits.
	time.Sleep(securefile.RacyWindow + 100*time.Millisecond)

	for _, mode := range []string{"connect", "http"} {
		b.Run(mode, func(b *testing.B) {
			one := func() error {
				return benchExchange(srv.base, ln.Addr().String(), heads[mode], target, mode == "connect")
			}
			if err := one(); err != nil { // warm: the origin connection, the caches
				b.Fatal(err)
			}
			const clients = 8
			var next, failed atomic.Int64
			var first error
			var once sync.Once
			var wg sync.WaitGroup
			b.ResetTimer()
			start := testcpu.Now()
			for range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for next.Add(1) <= int64(b.N) {
						if err := one(); err != nil {
							failed.Add(1)
							once.Do(func() { first = err })
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
			if n := failed.Load(); n > 0 {
				b.Fatalf("%d of %d exchanges failed; the first: %v", n, b.N, first)
			}
		})
	}
}

// benchExchange sends head on a new connection to the proxy at addr and
// reads the response: for a tunnel, the 200, then a GET through it.
func benchExchange(ctx context.Context, addr, head, target string, tunnel bool) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	dl, _ := ctx.Deadline()
	c.SetDeadline(dl)
	if _, err := io.WriteString(c, head); err != nil {
		return err
	}
	br := bufio.NewReader(c)
	if tunnel {
		resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("CONNECT: %s (%s)", resp.Status, resp.Header.Get(ReasonHeader))
		}
		if _, err := io.WriteString(c, "GET /small HTTP/1.1\r\nHost: "+target+"\r\nConnection: close\r\n\r\n"); err != nil {
			return err
		}
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET: %s (%s)", resp.Status, resp.Header.Get(ReasonHeader))
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil && n != int64(len("hello, world\n")) {
		err = errors.New("GET: short body")
	}
	return err
}
