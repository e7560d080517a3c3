package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/testscript"
	"go.uber.org/goleak"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/reexec"
	"github.com/ocfetch/ocfetch/internal/testsupport/testchild"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/managed"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

// TestMain registers ocfetch as a command of the testscript scripts: the
// test binary, run under the name "ocfetch", is the CLI (main's run). When
// it is the test run itself, goroutine leaks fail it.
func TestMain(m *testing.M) {
	reexec.Init() // the parts ocfetch re-executes itself as: the sandbox's first process, the PDF extractor
	testchild.QuickRaceExit()
	testscript.Main(leakCheck{m}, map[string]func(){
		"ocfetch": func() { os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// ocfetch in a mount namespace of its own, with a workspace
		// bind-mounted at another path, as in a container (container_linux_test.go).
		mountedName: mountedMain,
	})
}

type leakCheck struct{ m *testing.M }

func (l leakCheck) Run() int {
	code := l.m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			return 1
		}
	}
	return code
}

// result is one in-process run of the CLI.
type result struct {
	code           int
	stdout, stderr string
}

// cliOptions adjust the app of one in-process run.
type cliOptions struct {
	stdin       string
	interactive bool
	progress    bool
	egress      func(*egress.Options)
	// layers replaces the test's own user configuration directory and
	// (absent) managed policy (testLayers).
	layers *layerFiles
}

var (
	testLayersMu sync.Mutex
	testLayersOf = map[string]layerFiles{}
)

// testLayers returns the test's own user configuration directory (trust
// store, user rules) and a managed policy path that does not exist, the
// same for every run of the CLI in one test and its subtests: no test
// reads or writes the real os.UserConfigDir() or /etc/ocfetch.
func testLayers(t testing.TB) layerFiles {
	testLayersMu.Lock()
	defer testLayersMu.Unlock()
	key, _, _ := strings.Cut(t.Name(), "/") // subtests share their test's files
	if l, ok := testLayersOf[key]; ok {
		return l
	}
	dir := t.TempDir()
	l := layerFiles{
		configDir: filepath.Join(dir, "config", "ocfetch"),
		managed:   &managed.Options{Path: filepath.Join(dir, "etc", "ocfetch", "policy.json"), Administrator: testAdmin},
	}
	testLayersOf[key] = l
	t.Cleanup(func() {
		testLayersMu.Lock()
		delete(testLayersOf, key)
		testLayersMu.Unlock()
	})
	return l
}

// testAdmin is the managed policy's administrator check in tests: the
// test's own user owns the files it writes.
func testAdmin(owner string) bool { return owner == strconv.Itoa(os.Getuid()) }

// ocfetch runs the CLI in-process with args and returns what it did.
func ocfetch(t *testing.T, o cliOptions, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := newApp(strings.NewReader(o.stdin), &stdout, &stderr)
	a.interactive = func() bool { return o.interactive }
	a.progress = func() bool { return o.progress }
	a.controllingTerminal = func() (*os.File, bool) { return nil, false }
	a.egressOptions = o.egress
	a.layers = testLayers(t)
	if o.layers != nil {
		a.layers = *o.layers
	}
	code := execute(context.Background(), a, args)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// want checks the exit code and that stdout and stderr hold the given
// substrings.
func (r result) want(t *testing.T, code int, stdout, stderr []string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code = %d; want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	for _, s := range stdout {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stdout does not contain %q:\n%s", s, r.stdout)
		}
	}
	for _, s := range stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr does not contain %q:\n%s", s, r.stderr)
		}
	}
}

// newRoot returns a fresh workspace root directory that the test's user
// trusts (in testLayers' trust store): its files, written by hand in the
// tests as a user would, grant what they say.
func newRoot(t *testing.T) string {
	t.Helper()
	dir := newUntrustedRoot(t)
	trustRoot(t, dir)
	return dir
}

// trustRoot adds root to the test's trust store (testLayers).
func trustRoot(t testing.TB, root string) {
	t.Helper()
	s, err := trust.Open(&trust.Options{Dir: testLayers(t).configDir})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Trust(context.Background(), root, trust.Details{How: "test"}); err != nil {
		t.Fatal(err)
	}
}

// newUntrustedRoot returns a fresh workspace root directory that is not
// trusted: a clone, as far as ocfetch can tell.
func newUntrustedRoot(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	// Resolve symlinks (macOS /var → /private/var) so paths in messages
	// compare equal.
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func wsOf(t testing.TB, root string) workspace.Workspace {
	t.Helper()
	ws, err := workspace.Resolve(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// writeFile writes a workspace file by hand, as a user would.
func writeFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// site is a loopback test server that records what it was asked.
type site struct {
	*httptest.Server
	port int

	mu   sync.Mutex
	reqs []seenRequest
}

type seenRequest struct {
	method, path, body string
	header             http.Header
}

func (s *site) requests() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seenRequest(nil), s.reqs...)
}

// newSite starts a loopback HTTP server with a few named paths:
//
//	/            an HTML page (title "Harbour", a paragraph)
//	/long        plain text of 100 characters "0123456789" × 10
//	/echo        plain text "METHOD body" and the X-Test header
//	/missing     404
//	/hop         302 to /page on the same server (same target)
//	/away?port=N 302 to http://127.0.0.1:N/ (off target)
//	/binary      2 MiB of bytes 0..255 as application/octet-stream
//	             (with Content-Length, unless ?chunked=1)
//	/slow        waits for the client to go away
func newSite(t *testing.T) *site {
	t.Helper()
	s := startSite()
	t.Cleanup(s.Close)
	return s
}

// startSite is newSite for callers without a *testing.T (testscript's
// Setup); the caller closes it.
func startSite() *site {
	s := &site{}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" && r.URL.Path != "/page" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, sitePage)
	})
	mux.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, strings.Repeat("0123456789", 10))
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s %s", r.Method, b, r.Header.Get("X-Test"))
	})
	mux.HandleFunc("/hop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page", http.StatusFound)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:"+r.URL.Query().Get("port")+"/", http.StatusFound)
	})
	mux.HandleFunc("/binary", func(w http.ResponseWriter, r *http.Request) {
		b := binaryBody()
		w.Header().Set("Content-Type", "application/octet-stream")
		if r.URL.Query().Get("chunked") == "" {
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		}
		w.Write(b)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		s.mu.Lock()
		s.reqs = append(s.reqs, seenRequest{method: r.Method, path: r.URL.RequestURI(), body: string(b), header: r.Header.Clone()})
		s.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		mux.ServeHTTP(w, r)
	}))
	s.port = s.Listener.Addr().(*net.TCPAddr).Port
	return s
}

// sitePage is the HTML the site serves at / and /page.
const sitePage = `<html><head><title>Harbour</title></head><body><main><h1>Harbour</h1><p>The gate opens at <b>six</b>.</p></main></body></html>` + "\n"

func binaryBody() []byte {
	b := make([]byte, 2<<20)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// url returns http://127.0.0.1:PORT + path.
func (s *site) url(path string) string { return fmt.Sprintf("http://127.0.0.1:%d%s", s.port, path) }

// localRoot returns a workspace root whose allowlist admits s's port, with
// a saved allow rule for 127.0.0.1 on it: get with --profile permissive then
// reaches s.
func localRoot(t *testing.T, s *site) string {
	t.Helper()
	root := newRoot(t)
	ws := wsOf(t, root)
	if _, err := localfetch.AllowPort(context.Background(), ws, uint16(s.port)); err != nil {
		t.Fatal(err)
	}
	testws.Write(t, ws, testws.Spec{Allow: []string{fmt.Sprintf("127.0.0.1:%d", s.port)}})
	return root
}

// publicAddr is what the injected resolver answers for example.com and
// www.example.com: a public-looking address that is never dialed (the
// injected dial goes to a loopback TLS server instead).
var publicAddr = netip.MustParseAddr("93.184.216.34")

// publicSite starts a loopback TLS server standing in for
// https://example.com/ and returns it with the egress options that reach
// it: a resolver answering publicAddr, a dial that connects publicAddr:443
// (only) to the loopback server and records every address, and the
// server's CA.
func publicSite(t *testing.T, h http.Handler) (*testnet.PublicTLS, func(*egress.Options)) {
	t.Helper()
	pub := testnet.StartPublicTLS(t, h, &testnet.Options{Only: netip.AddrPortFrom(publicAddr, 443)})
	opts := func(o *egress.Options) {
		o.Resolver = testnet.Resolver{"example.com": {publicAddr}, "www.example.com": {publicAddr}}
		o.RootCAs = pub.RootCAs
		o.Dial = pub.Dial
	}
	return pub, opts
}

// snapshot returns every file under dir with its contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(b)
		return nil
	})
	return files
}

// decodeStrict decodes exactly one JSON object from s into v, refusing
// unknown fields and trailing data.
func decodeStrict(t *testing.T, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode %T: %v\n%s", v, err, s)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value in output:\n%s", s)
	}
}

// keysOf returns the sorted top-level keys of a JSON object.
func keysOf(t *testing.T, s string) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, s)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func diffKeys(t *testing.T, got []string, want ...string) {
	t.Helper()
	sort.Strings(want)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("JSON keys (-want +got):\n%s", d)
	}
}
