// Command proxybench compares the ocfetch egress proxy with Stripe's
// smokescreen, side by side in one run, on loopback only:
//
//   - requests per second for a small response, one new connection per
//     request, from a fixed number of concurrent clients, in three modes:
//     CONNECT (CONNECT, GET, close), HTTP (an absolute-form GET, close)
//     and SOCKS5 (greeting, username/password, CONNECT, GET, close; the
//     ocfetch proxy only: smokescreen has no SOCKS);
//   - throughput of a 100 MB body through one tunnel;
//   - each proxy's peak resident memory (VmHWM from /proc/PID/status).
//
// Both proxies run as separate processes; the origin server and the client
// run in this process. The ocfetch proxy is this same binary re-executed
// with the "serve" argument, configured as `ocfetch proxy` would be for a
// loopback origin: a temporary workspace with the permissive profile, the
// origin's port in local_fetch.json, an allow rule for 127.0.0.1:PORT, and
// the audit log written on every tunnel, and the per-run credentials of
// `ocfetch run` required of every client (Proxy-Authorization: Basic, and
// SOCKS5 username/password). Smokescreen runs with
// --allow-address 127.0.0.1 so it admits the origin.
//
// Every loop is bounded in count and in time. Run it with run.sh, which
// installs smokescreen into a temporary GOBIN.
package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/proxy"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		if err := serve(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "proxybench serve:", err)
			os.Exit(1)
		}
		return
	}
	if err := bench(); err != nil {
		fmt.Fprintln(os.Stderr, "proxybench:", err)
		os.Exit(1)
	}
}

// serve runs the ocfetch proxy for the origin port given, printing its
// address on stdout, until SIGTERM or SIGINT.
func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	root := fs.String("root", "", "workspace root")
	auth := fs.String("auth", "", "credentials user:password every client must present (empty: none)")
	portList := fs.String("origin-ports", "", "comma-separated origin ports to admit")
	fs.Parse(args)
	var ports []uint16
	for _, p := range strings.Split(*portList, ",") {
		n, err := capability.ParsePort(p)
		if err != nil {
			return err
		}
		ports = append(ports, n)
	}
	ws, err := workspace.Resolve(*root)
	if err != nil {
		return err
	}
	if err := ws.EnsureDir(); err != nil {
		return err
	}
	if err := localfetch.WriteAllowedPorts(ws, localfetch.NewPorts(ports...)); err != nil {
		return err
	}
	pat, _ := capability.ParseHostPattern("127.0.0.1")
	for _, port := range ports {
		if err := rules.Add(context.Background(), ws, rules.NewRule(rules.Allow, pat, port)); err != nil {
			return err
		}
	}
	// The bench's own trust store and user rules, next to its workspace,
	// in which the workspace is trusted (its ports and rules are the
	// bench's); the machine's managed policy applies as everywhere.
	layersDir := filepath.Join(ws.Root, ".bench-layers")
	store, err := trust.Open(&trust.Options{Dir: layersDir})
	if err != nil {
		return err
	}
	if err := store.Trust(context.Background(), ws.Root, trust.Details{How: "proxybench"}); err != nil {
		return err
	}
	opts := &proxy.Options{
		Scope: &scope.Scope{Workspace: ws, Profile: risk.Permissive,
			Layers: &policy.Layers{Trust: store, User: &rules.Location{Dir: layersDir, Name: "rules.json"}}},
		Audit:         audit.Open(ws),
		MaxConcurrent: 4096,
	}
	if *auth != "" {
		creds, err := proxy.ParseCredentials(*auth)
		if err != nil {
			return err
		}
		opts.Auth = &creds
	}
	srv, err := proxy.New(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	if path := os.Getenv("PROXYBENCH_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	fmt.Println(ln.Addr().String())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sigs
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, proxy.ErrServerClosed) {
		return err
	}
	return nil
}

type config struct {
	smokescreen string
	requests    int
	concurrency int
	warmup      int
	bigMB       int
	rounds      int
	limit       time.Duration
	only        string
	modes       string
}

func bench() error {
	var c config
	flag.StringVar(&c.smokescreen, "smokescreen", "", "path of the smokescreen binary (required)")
	flag.IntVar(&c.requests, "n", 10000, "small requests per proxy (one tunnel each)")
	flag.IntVar(&c.concurrency, "c", 32, "concurrent clients for the small requests")
	flag.IntVar(&c.warmup, "warmup", 500, "warm-up requests per proxy, not measured")
	flag.IntVar(&c.bigMB, "big-mb", 100, "size of the large body in MB")
	flag.IntVar(&c.rounds, "rounds", 5, "interleaved rounds per measurement (the median is reported)")
	flag.StringVar(&c.only, "only", "", `run only "small" or "large"`)
	flag.StringVar(&c.modes, "modes", "connect,http,socks", "small-request modes to measure: connect, http, socks")
	flag.DurationVar(&c.limit, "limit", 60*time.Second, "time bound of each measured phase")
	flag.Parse()
	if c.smokescreen == "" {
		return errors.New("-smokescreen PATH is required (run.sh installs it)")
	}

	tmp, err := os.MkdirTemp("", "proxybench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	origins, err := startOrigin(int64(c.bigMB)<<20, originPorts, filepath.Join(tmp, "big"))
	if err != nil {
		return err
	}
	var ports []string
	for _, o := range origins {
		defer o.Close()
		_, port, _ := net.SplitHostPort(o.Addr().String())
		ports = append(ports, port)
	}
	originAddr := origins[0].Addr().String()
	var originAddrs []string
	for _, o := range origins {
		originAddrs = append(originAddrs, o.Addr().String())
	}
	portStr := strings.Join(ports, ",")

	self, err := os.Executable()
	if err != nil {
		return err
	}
	creds, err := proxy.NewCredentials()
	if err != nil {
		return err
	}
	ours, err := startOurs(self, tmp, portStr, creds)
	if err != nil {
		return err
	}
	defer ours.stop()
	smk, err := startSmokescreen(c.smokescreen, tmp)
	if err != nil {
		return err
	}
	defer smk.stop()
	procs := []*proc{ours, smk}

	fmt.Printf("proxybench %s  GOMAXPROCS=%q  cores=%d\n", time.Now().UTC().Format(time.RFC3339), os.Getenv("GOMAXPROCS"), runtime.NumCPU())
	fmt.Printf("small: %d requests per proxy and mode in %d interleaved rounds (one new connection each, GET, %d-byte body), %d concurrent clients, %d warm-up\n",
		c.requests, c.rounds, len(smallBody), c.concurrency, c.warmup)
	fmt.Printf("large: %d MB body through one CONNECT tunnel, %d interleaved rounds\n\n", c.bigMB, c.rounds)

	type row struct {
		rps           map[string][]float64
		lat           map[string][]time.Duration
		errs          map[string]int64
		smallCPU      map[string]time.Duration
		mbps          []float64
		largeCPU      time.Duration
		hwm, rss      int64
		smallRequests map[string]int
	}
	rows := make([]row, len(procs))
	for i := range rows {
		rows[i] = row{rps: map[string][]float64{}, lat: map[string][]time.Duration{}, errs: map[string]int64{},
			smallCPU: map[string]time.Duration{}, smallRequests: map[string]int{}}
	}
	modes := strings.Split(c.modes, ",")
	for _, m := range modes {
		if m != "connect" && m != "http" && m != "socks" {
			return fmt.Errorf("-modes: unknown mode %q", m)
		}
	}
	supports := func(p *proc, mode string) bool { return mode != "socks" || p.socks }
	if c.only != "large" {
		for _, mode := range modes {
			for _, p := range procs {
				if !supports(p, mode) {
					continue
				}
				if _, err := small(p, mode, originAddrs, c.warmup, c.concurrency, c.limit); err != nil {
					return fmt.Errorf("%s %s warm-up: %w", p.name, mode, err)
				}
			}
			per := max(c.requests/c.rounds, 1)
			for r := range c.rounds {
				for k := range procs {
					// Alternate which proxy goes first, so neither always
					// runs on a machine the other just warmed or loaded.
					i := (k + r) % len(procs)
					p := procs[i]
					if !supports(p, mode) {
						continue
					}
					cpu0 := p.cpu()
					res, err := small(p, mode, originAddrs, per, c.concurrency, c.limit)
					if err != nil {
						return fmt.Errorf("%s %s: %w", p.name, mode, err)
					}
					rows[i].smallCPU[mode] += p.cpu() - cpu0
					rows[i].rps[mode] = append(rows[i].rps[mode], res.rps)
					rows[i].lat[mode] = append(rows[i].lat[mode], res.lat...)
					rows[i].errs[mode] += res.errs
					rows[i].smallRequests[mode] += per
				}
			}
		}
	}
	if c.only != "small" {
		for r := range c.rounds {
			for k := range procs {
				i := (k + r) % len(procs)
				p := procs[i]
				cpu0 := p.cpu()
				mbps, err := large(p, originAddr, int64(c.bigMB)<<20, c.limit)
				if err != nil {
					return fmt.Errorf("%s large body: %w", p.name, err)
				}
				rows[i].largeCPU += p.cpu() - cpu0
				rows[i].mbps = append(rows[i].mbps, mbps)
			}
		}
	}
	for i, p := range procs {
		rows[i].hwm, rows[i].rss = p.memory()
	}
	fmt.Printf("%-20s %-8s %13s %9s %9s %6s %13s\n", "proxy", "mode", "small req/s", "p50", "p99", "errors", "CPU ms/1k req")
	for _, mode := range modes {
		for i, p := range procs {
			r := rows[i]
			if !supports(p, mode) || c.only == "large" {
				continue
			}
			lat := r.lat[mode]
			sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
			cpuPerK := 0.0
			if r.smallRequests[mode] > 0 {
				cpuPerK = float64(r.smallCPU[mode].Milliseconds()) * 1000 / float64(r.smallRequests[mode])
			}
			fmt.Printf("%-20s %-8s %13s %9s %9s %6d %13.0f\n", p.name, mode,
				medianOf(r.rps[mode]), pct(lat, 50).Round(10*time.Microsecond), pct(lat, 99).Round(10*time.Microsecond), r.errs[mode], cpuPerK)
		}
	}
	fmt.Printf("\n%-20s %14s %12s %14s\n", "proxy", "large MB/s", "CPU ms/GB", "peak RSS (MB)")
	for i, p := range procs {
		r := rows[i]
		cpuPerGB := 0.0
		if len(r.mbps) > 0 {
			cpuPerGB = float64(r.largeCPU.Milliseconds()) * 1024 / float64(len(r.mbps)*c.bigMB)
		}
		fmt.Printf("%-20s %14s %12.0f %14.1f\n", p.name, medianOf(r.mbps), cpuPerGB, float64(r.hwm)/1024)
	}
	fmt.Println("\nreq/s and MB/s: median of the rounds (min–max); CPU: the proxy process's user+system time; peak RSS: VmHWM")
	return nil
}

// medianOf formats the median of xs with its range.
func medianOf(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return fmt.Sprintf("%.0f (%.0f–%.0f)", s[len(s)/2], s[0], s[len(s)-1])
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)*p/100, len(sorted)-1)]
}

var smallBody = []byte("hello, world\n")

// originPorts is how many ports the origin listens on. Each small request
// is a new connection client→proxy and proxy→origin, left in TIME_WAIT for
// a minute; spreading them over several origin ports (and the clients over
// several source addresses) keeps the run clear of ephemeral-port
// exhaustion, which would otherwise add 1 s SYN retries to the figures.
const originPorts = 8

// writeBody writes size bytes of text to path.
func writeBody(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte('a' + i%26)
	}
	for left := size; left > 0; {
		n := min(left, int64(len(chunk)))
		if _, err := f.Write(chunk[:n]); err != nil {
			f.Close()
			return err
		}
		left -= n
	}
	return f.Close()
}

// startOrigin serves /small (13 bytes) and /big (size bytes) on n loopback
// ports.
func startOrigin(size int64, n int, bigFile string) ([]net.Listener, error) {
	if err := writeBody(bigFile, size); err != nil {
		return nil, err
	}
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return nil, err
		}
		lns = append(lns, ln)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/small", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write(smallBody)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		// Served from a file, so the origin sends it with sendfile(2) and
		// spends little of the machine's CPU on it.
		f, err := os.Open(bigFile)
		if err != nil {
			http.Error(w, "no body file", http.StatusInternalServerError)
			return
		}
		defer f.Close()
		http.ServeContent(w, r, "big", time.Time{}, f)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	for _, ln := range lns {
		go srv.Serve(ln)
	}
	return lns, nil
}

type proc struct {
	name string
	cmd  *exec.Cmd
	addr string
	// creds are the credentials the proxy requires (nil: none).
	creds *proxy.Credentials
	// socks reports that the proxy speaks SOCKS5.
	socks bool
}

func (p *proc) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// cpu returns the process's user and system CPU time so far.
func (p *proc) cpu() time.Duration {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.cmd.Process.Pid), "stat"))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses: utime is the
	// 12th and stime the 13th (fields 14 and 15 of proc(5)), in clock ticks
	// of 1/100 s.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}

// memory returns the process's peak and current resident set, in KiB.
func (p *proc) memory() (hwm, rss int64) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.cmd.Process.Pid), "status"))
	if err != nil {
		return -1, -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmHWM:":
			hwm = n
		case "VmRSS:":
			rss = n
		}
	}
	return hwm, rss
}

func startOurs(self, tmp, originPorts string, creds proxy.Credentials) (*proc, error) {
	root := filepath.Join(tmp, "ws")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "serve", "-root", root, "-origin-ports", originPorts, "-auth", creds.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("ocfetch proxy did not start: %w", err)
	}
	return &proc{name: "ocfetch proxy", cmd: cmd, addr: strings.TrimSpace(line), creds: &creds, socks: true}, nil
}

func startSmokescreen(bin, tmp string) (*proc, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	logf, err := os.Create(filepath.Join(tmp, "smokescreen.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--listen-ip", "127.0.0.1", "--listen-port", port, "--allow-address", "127.0.0.1")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, fmt.Errorf("smokescreen did not listen on %s within 10s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ver, _ := exec.Command(bin, "--version").CombinedOutput()
	return &proc{name: "smokescreen " + strings.TrimPrefix(strings.TrimSpace(string(ver)), "smokescreen version "), cmd: cmd, addr: addr}, nil
}

// dialProxy connects to the proxy from src.
func dialProxy(ctx context.Context, addr string, src net.Addr) (net.Conn, error) {
	d := net.Dialer{LocalAddr: src}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	return c, nil
}

// authHeader is the Proxy-Authorization line for p, or "".
func authHeader(p *proc) string {
	if p.creds == nil {
		return ""
	}
	return "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(p.creds.String())) + "\r\n"
}

// tunnel opens a CONNECT tunnel to target through the proxy p.
func tunnel(ctx context.Context, p *proc, target string, src net.Addr) (net.Conn, *bufio.Reader, error) {
	c, err := dialProxy(ctx, p.addr, src)
	if err != nil {
		return nil, nil, err
	}
	if _, err := io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n"+authHeader(p)+"\r\n"); err != nil {
		c.Close()
		return nil, nil, err
	}
	br := bufio.NewReaderSize(c, 32<<10)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	if resp.StatusCode != 200 {
		c.Close()
		return nil, nil, fmt.Errorf("CONNECT %s: %s", target, resp.Status)
	}
	return c, br, nil
}

// get sends GET path on an open tunnel and reads the whole response.
func get(c net.Conn, br *bufio.Reader, target, path string) (int64, error) {
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: "+target+"\r\nConnection: close\r\n\r\n"); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return 0, fmt.Errorf("GET: %s", resp.Status)
	}
	return io.Copy(io.Discard, resp.Body)
}

type smallResult struct {
	rps  float64
	lat  []time.Duration
	errs int64
}

// socksTunnel opens a SOCKS5 CONNECT to target (an IPv4 host:port)
// through the proxy p, with its username and password.
func socksTunnel(ctx context.Context, p *proc, target string, src net.Addr) (net.Conn, *bufio.Reader, error) {
	ap, err := netip.ParseAddrPort(target)
	if err != nil {
		return nil, nil, err
	}
	c, err := dialProxy(ctx, p.addr, src)
	if err != nil {
		return nil, nil, err
	}
	a := ap.Addr().As4()
	msg := []byte{5, 1, 2, 1, byte(len(p.creds.User))}
	msg = append(msg, p.creds.User...)
	msg = append(msg, byte(len(p.creds.Password)))
	msg = append(msg, p.creds.Password...)
	msg = append(msg, 5, 1, 0, 1, a[0], a[1], a[2], a[3], byte(ap.Port()>>8), byte(ap.Port()))
	// The greeting, the credentials and the request in one write: the
	// proxy reads them in order.
	if _, err := c.Write(msg); err != nil {
		c.Close()
		return nil, nil, err
	}
	br := bufio.NewReaderSize(c, 32<<10)
	var rep [2 + 2 + 10]byte
	if _, err := io.ReadFull(br, rep[:]); err != nil {
		c.Close()
		return nil, nil, err
	}
	if rep[1] != 2 || rep[3] != 0 || rep[5] != 0 {
		c.Close()
		return nil, nil, fmt.Errorf("SOCKS5 CONNECT %s: method %d, auth %d, reply %d", target, rep[1], rep[3], rep[5])
	}
	return c, br, nil
}

// forwardGet sends an absolute-form GET for target/path to the proxy p on
// a new connection and reads the whole response.
func forwardGet(ctx context.Context, p *proc, target string, src net.Addr) error {
	c, err := dialProxy(ctx, p.addr, src)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET http://"+target+"/small HTTP/1.1\r\nHost: "+target+"\r\n"+authHeader(p)+"Connection: close\r\n\r\n"); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET: %s", resp.Status)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// smallOne is one small request in mode through p.
func smallOne(ctx context.Context, p *proc, mode, target string, src net.Addr) error {
	if mode == "http" {
		return forwardGet(ctx, p, target, src)
	}
	open := tunnel
	if mode == "socks" {
		open = socksTunnel
	}
	c, br, err := open(ctx, p, target, src)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = get(c, br, target, "/small")
	return err
}

// small sends n requests in mode, each on a new connection, from conc
// clients, within limit. It fails if more than 1% of the requests fail.
func small(p *proc, mode string, targets []string, n, conc int, limit time.Duration) (smallResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var next, errs atomic.Int64
	lat := make([][]time.Duration, conc)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := next.Add(1)
				if k > int64(n) || ctx.Err() != nil {
					break
				}
				target := targets[int(k)%len(targets)]
				// Client source addresses 127.0.1.1–127.0.1.200.
				src := &net.TCPAddr{IP: net.IPv4(127, 0, 1, byte(1+k%200))}
				t0 := time.Now()
				rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
				err := smallOne(rctx, p, mode, target, src)
				rcancel()
				if err != nil {
					if errs.Add(1) == 1 {
						fmt.Fprintln(os.Stderr, "first error:", err)
					}
					continue
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	if len(all) == 0 {
		return smallResult{}, errors.New("no request succeeded")
	}
	if errs.Load()*100 > int64(n) {
		return smallResult{}, fmt.Errorf("%d of %d requests failed", errs.Load(), n)
	}
	return smallResult{rps: float64(len(all)) / elapsed.Seconds(), lat: all, errs: errs.Load()}, nil
}

// large fetches the big body through one tunnel and returns MB/s.
func large(p *proc, target string, size int64, limit time.Duration) (float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	start := time.Now()
	c, br, err := tunnel(ctx, p, target, nil)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	n, err := get(c, br, target, "/big")
	if err != nil {
		return 0, err
	}
	if n != size {
		return 0, fmt.Errorf("body: got %d bytes; want %d", n, size)
	}
	return float64(n) / (1 << 20) / time.Since(start).Seconds(), nil
}
