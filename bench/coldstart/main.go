// Command coldstart times whole `ocfetch get` processes against `curl -s`
// on the same 10 KB loopback page, interleaved round by round so that the
// machine's load falls on all of them alike:
//
//	curl -s URL
//	ocfetch get --format raw URL
//	ocfetch get URL            (Markdown)
//
// The page is served by this process on 127.0.0.1; the workspace (a
// temporary directory with every policy layer: profile permissive in
// settings.json, local mode for the page's port, a workspace and a user
// rule, the trust store, and the managed policy when run.sh could install
// it; see bench/internal/benchws) is made with the ocfetch binary under
// test, and every get writes its audit line. Nothing else is dialled.
// Reported per command: wall (p10, median, p90), CPU (user+system) and
// peak RSS (getrusage's ru_maxrss of the child), medians over the rounds.
// Run it through bench/coldstart/run.sh, which builds ocfetch as a release
// is built.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ocfetch/ocfetch/bench/internal/benchws"
	"github.com/ocfetch/ocfetch/internal/testsupport/testpage"
)

func main() {
	bin := flag.String("ocfetch", "", "the ocfetch binary to time (required); several, comma-separated, are timed side by side, named by file name")
	curl := flag.String("curl", "curl", "the curl binary")
	n := flag.Int("n", 200, "rounds (1–5000)")
	limit := flag.Duration("limit", 90*time.Second, "stop after this long, whatever -n says")
	straceBin := flag.String("strace", "", "also count the system calls of one `get --format raw` with this strace binary")
	flag.Parse()
	if *bin == "" || *n < 1 || *n > 5000 {
		fmt.Fprintln(os.Stderr, "usage: coldstart -ocfetch BIN [-curl CURL] [-n ROUNDS]")
		os.Exit(2)
	}
	if err := run(*bin, *curl, *n, *limit, *straceBin); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

type sample struct {
	wall, cpu time.Duration
	maxRSS    int64 // KiB
}

func run(binList, curl string, n int, limit time.Duration, straceBin string) error {
	bins := strings.Split(binList, ",")
	bin := bins[0]
	body := testpage.TenKB()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	url := "http://127.0.0.1:" + port + "/page"

	root, err := os.MkdirTemp("", "coldstart")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	layers, err := benchws.Setup(bin, root, []int{ln.Addr().(*net.TCPAddr).Port})
	if err != nil {
		return err
	}
	// Every binary after the first gets a configuration directory of its
	// own, its trust store and user rule written by its own commands: an
	// older ocfetch may not read the trust store a newer one writes (the
	// incarnation field), and must still find the workspace trusted.
	envs := make([][]string, len(bins)) // nil: this process's environment
	for i := 1; i < len(bins); i++ {
		dir, err := os.MkdirTemp("", "coldstart-config")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		envs[i] = append(os.Environ(), "XDG_CONFIG_HOME="+dir)
		for _, args := range [][]string{{"trust", "--yes"}, {"rules", "allow", "--user", "example.org"}} {
			c := exec.Command(bins[i], append([]string{"--root", root}, args...)...)
			c.Env = envs[i]
			if out, err := c.CombinedOutput(); err != nil {
				return fmt.Errorf("%s %s: %v\n%s", bins[i], strings.Join(args, " "), err, out)
			}
		}
	}
	type command struct {
		name string
		argv []string
		env  []string
	}
	cmds := []command{{"curl -s", []string{curl, "-s", "-o", os.DevNull, url}, nil}}
	for i, b := range bins {
		name := filepath.Base(b)
		cmds = append(cmds,
			command{name + " get --format raw", []string{b, "--root", root, "get", "--format", "raw", url}, envs[i]},
			command{name + " get (markdown)", []string{b, "--root", root, "get", url}, envs[i]})
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer devnull.Close()
	once := func(cmd command) (sample, error) {
		argv := cmd.argv
		c := exec.Command(argv[0], argv[1:]...)
		c.Env = cmd.env
		c.Stdout, c.Stderr = devnull, devnull
		start := time.Now()
		if err := c.Run(); err != nil {
			return sample{}, fmt.Errorf("%s: %v", strings.Join(argv, " "), err)
		}
		wall := time.Since(start)
		rss, ok := maxRSS(c.ProcessState)
		if !ok {
			return sample{}, errors.New("no peak RSS for the child (coldstart runs on Linux)")
		}
		return sample{wall, c.ProcessState.UserTime() + c.ProcessState.SystemTime(), rss}, nil
	}
	// Warm up the page cache and check every command succeeds.
	for _, c := range cmds {
		for range 3 {
			if _, err := once(c); err != nil {
				return err
			}
		}
	}
	res := make([][]sample, len(cmds))
	rounds, err := benchws.Interleave(n, len(cmds), limit, func(i int) error {
		s, err := once(cmds[i])
		res[i] = append(res[i], s)
		return err
	})
	if err != nil {
		return err
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("coldstart %s, %d interleaved rounds, 10 KB page on loopback, load %s\n",
		time.Now().UTC().Format(time.RFC3339), rounds, strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Printf("ocfetch %s: %s\n", bin, layers)
	fmt.Printf("%-36s %9s %10s %9s %8s %9s %8s %12s %8s\n", "command", "p10 ms", "median ms", "p90 ms", "÷ curl", "CPU ms", "÷ curl", "peak RSS MB", "÷ curl")
	base, baseCPU, baseRSS := median(res[0], false), median(res[0], true), medianRSS(res[0])
	for i, c := range cmds {
		m, mc, rss := median(res[i], false), median(res[i], true), medianRSS(res[i])
		fmt.Printf("%-36s %9.2f %10.2f %9.2f %7.2f× %9.2f %7.2f× %12.1f %7.2f×\n", c.name,
			ms(quantile(res[i], 0.1)), ms(m), ms(quantile(res[i], 0.9)), float64(m)/float64(base), ms(mc), float64(mc)/float64(baseCPU),
			float64(rss)/1024, float64(rss)/float64(baseRSS))
	}
	if len(bins) > 0 {
		// The targets of issue 22, for the first binary.
		raw, md := float64(median(res[1], false))/float64(base), float64(median(res[2], false))/float64(base)
		fmt.Printf("targets (wall ÷ curl): raw %.2f× ≤ 1.02× %s; Markdown %.2f× ≤ 1.10× %s\n", raw, met(raw <= 1.02), md, met(md <= 1.10))
	}
	fmt.Printf("audit lines written: %d\n", benchws.AuditLines(root))
	if straceBin != "" {
		return straceOne(straceBin, cmds[1].argv)
	}
	return nil
}

// straceOne counts the system calls of one run of argv (and its threads)
// and prints the most frequent.
func straceOne(straceBin string, argv []string) error {
	f, err := os.CreateTemp("", "coldstart-strace")
	if err != nil {
		return err
	}
	f.Close()
	defer os.Remove(f.Name())
	if out, err := exec.Command(straceBin, append([]string{"-f", "-c", "-S", "calls", "-o", f.Name()}, argv...)...).CombinedOutput(); err != nil {
		return fmt.Errorf("strace: %v\n%s", err, out)
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		return err
	}
	fmt.Printf("\nsystem calls of one %q (strace -f -c), most first:\n", strings.Join(argv[3:], " "))
	shown := 0
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || strings.HasPrefix(f[0], "-") || f[0] == "%" {
			continue
		}
		if f[len(f)-1] == "total" || shown < 14 {
			fmt.Printf("  %-18s %6s\n", f[len(f)-1], f[3])
			shown++
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func medianRSS(s []sample) int64 {
	v := make([]int64, len(s))
	for i, x := range s {
		v[i] = x.maxRSS
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func median(s []sample, cpu bool) time.Duration {
	v := make([]time.Duration, len(s))
	for i, x := range s {
		v[i] = x.wall
		if cpu {
			v[i] = x.cpu
		}
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func quantile(s []sample, q float64) time.Duration {
	v := make([]time.Duration, len(s))
	for i, x := range s {
		v[i] = x.wall
	}
	slices.Sort(v)
	return v[int(q*float64(len(v)-1))]
}
