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
// Both proxies run as separate processes, built as a release is
// (CGO_ENABLED=0, -trimpath, -ldflags "-s -w": run.sh builds them); the
// origin server and the client run in this process. The ocfetch proxy is
// the `ocfetch` binary itself, `ocfetch proxy --listen 127.0.0.1:0` with
// its default credentials file, in a workspace with every policy layer
// present (see bench/internal/benchws: the managed policy, trust store,
// user and workspace rules, settings.json, local_fetch.json for the
// origin's ports) and the audit line written for every tunnel and request.
// Smokescreen runs with --allow-address 127.0.0.1 so it admits the origin.
//
// Reported per proxy and mode: requests per second (median of the
// interleaved rounds), CPU seconds per 10k requests (the proxy process's
// own CPU time over the measured rounds, benchws.CPU), and ocfetch's figures as a
// ratio of smokescreen's; peak RSS (VmHWM) after the small requests and at
// the end.
//
// Every loop is bounded in count and in time. Run it with run.sh.
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
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ocfetch/ocfetch/bench/internal/benchws"
	"github.com/ocfetch/ocfetch/proxy"
)

func main() {
	if err := bench(); err != nil {
		fmt.Fprintln(os.Stderr, "proxybench:", err)
		os.Exit(1)
	}
}

type config struct {
	ocfetch     string
	smokescreen string
	requests    int
	concurrency int
	warmup      int
	bigMB       int
	rounds      int
	limit       time.Duration
	only        string
	modes       string
	export      bool
	rate        int
}

func bench() error {
	var c config
	flag.StringVar(&c.ocfetch, "ocfetch", "", "path of the ocfetch binary (required)")
	flag.StringVar(&c.smokescreen, "smokescreen", "", "path of the smokescreen binary (required)")
	flag.IntVar(&c.requests, "n", 10000, "small requests per proxy (one tunnel each)")
	flag.IntVar(&c.concurrency, "c", 32, "concurrent clients for the small requests")
	flag.IntVar(&c.warmup, "warmup", 500, "warm-up requests per proxy, not measured")
	flag.IntVar(&c.bigMB, "big-mb", 100, "size of the large body in MB")
	flag.IntVar(&c.rounds, "rounds", 5, "interleaved rounds per measurement (the median is reported)")
	flag.StringVar(&c.only, "only", "", `run only "small" or "large"`)
	flag.StringVar(&c.modes, "modes", "connect,http,socks", "small-request modes to measure: connect, http, socks")
	flag.DurationVar(&c.limit, "limit", 60*time.Second, "time bound of each measured phase")
	flag.BoolVar(&c.export, "export", false, "measure the audit export instead (issue 24): `ocfetch proxy` with and without an OTLP collector, see export.go")
	flag.IntVar(&c.rate, "rate", 1000, "with -export: requests per second, all clients together (0: as fast as they go)")
	flag.Parse()
	if c.smokescreen == "" || c.ocfetch == "" {
		return errors.New("-ocfetch PATH and -smokescreen PATH are required (run.sh builds them)")
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
	var ports []int
	for _, o := range origins {
		defer o.Close()
		ports = append(ports, o.Addr().(*net.TCPAddr).Port)
	}
	originAddr := origins[0].Addr().String()
	var originAddrs []string
	for _, o := range origins {
		originAddrs = append(originAddrs, o.Addr().String())
	}

	root := filepath.Join(tmp, "ws")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	layers, err := benchws.Setup(c.ocfetch, root, ports)
	if err != nil {
		return err
	}
	if c.export {
		return exportBench(c, root, tmp, originAddrs, layers)
	}
	ours, err := startOurs(c.ocfetch, root, "")
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
	fmt.Printf("ocfetch %s: %s\n", c.ocfetch, layers)
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
		hwmSmall      int64
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
				if _, err := small(p, mode, originAddrs, c.warmup, c.concurrency, 0, c.limit); err != nil {
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
					res, err := small(p, mode, originAddrs, per, c.concurrency, 0, c.limit)
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
	for i, p := range procs {
		rows[i].hwmSmall, _ = p.memory()
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
	fmt.Printf("%-20s %-8s %19s %9s %9s %6s %12s\n", "proxy", "mode", "small req/s", "p50", "p99", "errors", "CPU s/10k")
	for _, mode := range modes {
		for i, p := range procs {
			r := rows[i]
			if !supports(p, mode) || c.only == "large" {
				continue
			}
			lat := r.lat[mode]
			sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
			fmt.Printf("%-20s %-8s %19s %9s %9s %6d %12.2f\n", p.name, mode,
				medianOf(r.rps[mode]), pct(lat, 50).Round(10*time.Microsecond), pct(lat, 99).Round(10*time.Microsecond), r.errs[mode],
				cpuPer10k(r.smallCPU[mode], r.smallRequests[mode]))
		}
	}
	if c.only != "large" {
		// ocfetch ÷ smokescreen, and the targets of issue 22.
		targets := map[string][2]float64{"connect": {0.8, 1.3}, "http": {1.0, 1.5}}
		fmt.Printf("\n%-8s %14s %10s %14s %10s\n", "mode", "CPU/10k ratio", "target", "req/s ratio", "target")
		for _, mode := range modes {
			t, ok := targets[mode]
			if !ok {
				continue
			}
			o, sm := rows[0], rows[1]
			cpuRatio := cpuPer10k(o.smallCPU[mode], o.smallRequests[mode]) / cpuPer10k(sm.smallCPU[mode], sm.smallRequests[mode])
			rpsRatio := median(o.rps[mode]) / median(sm.rps[mode])
			fmt.Printf("%-8s %13.2f× %9s %13.2f× %9s\n", mode, cpuRatio, fmt.Sprintf("≤ %.1f× %s", t[0], met(cpuRatio <= t[0])),
				rpsRatio, fmt.Sprintf("≥ %.1f× %s", t[1], met(rpsRatio >= t[1])))
		}
	}
	fmt.Printf("\n%-20s %19s %12s %16s %16s\n", "proxy", "large MB/s", "CPU ms/GB", "peak RSS small", "peak RSS (MB)")
	for i, p := range procs {
		r := rows[i]
		cpuPerGB := 0.0
		if len(r.mbps) > 0 {
			cpuPerGB = float64(r.largeCPU.Milliseconds()) * 1024 / float64(len(r.mbps)*c.bigMB)
		}
		fmt.Printf("%-20s %19s %12.0f %16.1f %16.1f\n", p.name, medianOf(r.mbps), cpuPerGB, float64(r.hwmSmall)/1024, float64(r.hwm)/1024)
	}
	for _, p := range procs {
		if m, err := benchws.Status(p.cmd.Process.Pid); err == nil {
			fmt.Printf("%-20s now: RSS %.1f MB = anonymous %.1f + file-backed %.1f (the binary's pages) + shmem %.1f\n", p.name,
				float64(m["VmRSS"])/1024, float64(m["RssAnon"])/1024, float64(m["RssFile"])/1024, float64(m["RssShmem"])/1024)
		}
	}
	rss := float64(rows[0].hwm) / float64(rows[1].hwm)
	fmt.Printf("peak RSS ratio ocfetch ÷ smokescreen: %.2f× (target ≤ 1.0× %s); after the small requests only: %.2f×\n",
		rss, met(rss <= 1.0), float64(rows[0].hwmSmall)/float64(rows[1].hwmSmall))
	fmt.Printf("audit lines written by ocfetch: %d (requests sent to it, warm-up included: %d)\n", benchws.AuditLines(root), ours.sent.Load())
	fmt.Println("\nreq/s and MB/s: median of the rounds (min–max); CPU: the proxy process's own CPU time (its CPU-time clock, in ns; benchws.CPU) over the measured rounds; peak RSS: VmHWM")
	return nil
}

func cpuPer10k(cpu time.Duration, requests int) float64 {
	if requests == 0 {
		return 0
	}
	return cpu.Seconds() * 10000 / float64(requests)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
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
	// sent counts the requests sent to the proxy.
	sent atomic.Int64
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

// cpu returns the process's CPU time so far (benchws.CPU).
func (p *proc) cpu() time.Duration {
	d, err := benchws.CPU(p.cmd.Process.Pid)
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxybench:", err)
	}
	return d
}

// memory returns the process's peak and current resident set, in KiB.
func (p *proc) memory() (hwm, rss int64) {
	hwm, rss, err := benchws.Memory(p.cmd.Process.Pid)
	if err != nil {
		return -1, -1
	}
	return hwm, rss
}

// startOurs starts `ocfetch proxy` in the workspace root on a free
// loopback port, with its default credentials file (created in the user
// configuration directory on first use), and waits for the address it
// prints.
func startOurs(bin, root, configHome string) (*proc, error) {
	cmd := exec.Command(bin, "--root", root, "proxy", "--listen", "127.0.0.1:0")
	if configHome != "" {
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+configHome)
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	fail := func(err error) (*proc, error) {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, err
	}
	addrc := make(chan string, 1)
	go func() {
		// "ocfetch proxy: listening on ADDR, HTTP and SOCKS5 (…)"; the rest
		// of stderr is passed on.
		sc := bufio.NewScanner(errOut)
		found := false
		for sc.Scan() {
			line := sc.Text()
			if _, rest, ok := strings.Cut(line, "listening on "); ok && !found {
				found = true
				addr, _, _ := strings.Cut(rest, ",")
				addrc <- addr
				continue
			}
			if found && strings.HasPrefix(line, "  export ") {
				continue
			}
			fmt.Fprintln(os.Stderr, line)
		}
		close(addrc)
	}()
	var addr string
	select {
	case a, ok := <-addrc:
		if !ok {
			return fail(errors.New("ocfetch proxy exited before it listened"))
		}
		addr = a
	case <-time.After(10 * time.Second):
		return fail(errors.New("ocfetch proxy did not listen within 10s"))
	}
	dir := configHome
	if dir == "" {
		if dir, err = os.UserConfigDir(); err != nil {
			return fail(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "ocfetch", "proxy-credentials"))
	if err != nil {
		return fail(err)
	}
	creds, err := proxy.ParseCredentials(strings.TrimSpace(string(b)))
	if err != nil {
		return fail(err)
	}
	return &proc{name: "ocfetch proxy", cmd: cmd, addr: addr, creds: &creds, socks: true}, nil
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
	p.sent.Add(1)
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
// clients, within limit: at rate requests per second all together (the
// k-th request starts no earlier than k/rate seconds in), or as fast as
// the clients go when rate is 0. It fails if more than 1% of the
// requests fail.
func small(p *proc, mode string, targets []string, n, conc, rate int, limit time.Duration) (smallResult, error) {
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
				if rate > 0 {
					time.Sleep(time.Until(start.Add(time.Duration(k-1) * time.Second / time.Duration(rate))))
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
	p.sent.Add(1)
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
