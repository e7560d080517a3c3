// Command coldstart times whole `ocfetch get` processes against `curl -s`
// on the same 10 KB loopback page, interleaved round by round so that the
// machine's load falls on all of them alike:
//
//	curl -s URL
//	ocfetch --profile permissive get --format raw URL
//	ocfetch --profile permissive get URL            (Markdown)
//
// The page is served by this process on 127.0.0.1; the workspace (a
// temporary directory, local mode for the page's port and a rule for it)
// is made with the ocfetch binary under test. Nothing else is dialled.
// Run it through bench/coldstart/run.sh, which builds ocfetch as a release
// is built.
package main

import (
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
)

func main() {
	bin := flag.String("ocfetch", "", "the ocfetch binary to time (required); several, comma-separated, are timed side by side, named by file name")
	curl := flag.String("curl", "curl", "the curl binary")
	n := flag.Int("n", 200, "rounds (1–5000)")
	limit := flag.Duration("limit", 5*time.Minute, "stop after this long, whatever -n says")
	flag.Parse()
	if *bin == "" || *n < 1 || *n > 5000 {
		fmt.Fprintln(os.Stderr, "usage: coldstart -ocfetch BIN [-curl CURL] [-n ROUNDS]")
		os.Exit(2)
	}
	if err := run(*bin, *curl, *n, *limit); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

// page is a 10 KB HTML page, paragraphs of plain text.
func page() []byte {
	var s strings.Builder
	s.WriteString("<!doctype html><html><head><title>Ten KB</title></head><body><main>")
	for s.Len() < 10<<10-200 {
		s.WriteString("<p>The quick brown fox jumps over the lazy dog, again and again.</p>\n")
	}
	s.WriteString("</main></body></html>")
	return []byte(s.String())
}

type sample struct{ wall, cpu time.Duration }

func run(binList, curl string, n int, limit time.Duration) error {
	bins := strings.Split(binList, ",")
	bin := bins[0]
	body := page()
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
	for _, args := range [][]string{{"local", "allow", port}, {"rules", "allow", "127.0.0.1:" + port}} {
		if out, err := exec.Command(bin, append([]string{"--root", root}, args...)...).CombinedOutput(); err != nil {
			return fmt.Errorf("ocfetch %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	type command struct {
		name string
		argv []string
	}
	cmds := []command{{"curl -s", []string{curl, "-s", "-o", os.DevNull, url}}}
	for _, b := range bins {
		name := filepath.Base(b)
		cmds = append(cmds,
			command{name + " get --format raw", []string{b, "--root", root, "--profile", "permissive", "get", "--format", "raw", url}},
			command{name + " get (markdown)", []string{b, "--root", root, "--profile", "permissive", "get", url}})
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer devnull.Close()
	once := func(argv []string) (sample, error) {
		c := exec.Command(argv[0], argv[1:]...)
		c.Stdout, c.Stderr = devnull, devnull
		start := time.Now()
		if err := c.Run(); err != nil {
			return sample{}, fmt.Errorf("%s: %v", strings.Join(argv, " "), err)
		}
		wall := time.Since(start)
		return sample{wall, c.ProcessState.UserTime() + c.ProcessState.SystemTime()}, nil
	}
	// Warm up the page cache and check every command succeeds.
	for _, c := range cmds {
		for range 3 {
			if _, err := once(c.argv); err != nil {
				return err
			}
		}
	}
	res := make([][]sample, len(cmds))
	deadline := time.Now().Add(limit)
	rounds := 0
	for r := 0; r < n && time.Now().Before(deadline); r++ {
		for k := range cmds {
			i := (r + k) % len(cmds) // rotate the order every round
			s, err := once(cmds[i].argv)
			if err != nil {
				return err
			}
			res[i] = append(res[i], s)
		}
		rounds++
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("coldstart %s, %d interleaved rounds, 10 KB page on loopback, load %s\n",
		time.Now().UTC().Format(time.RFC3339), rounds, strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Printf("%-36s %10s %10s %10s %9s %10s %9s\n", "command", "p10 ms", "median ms", "p90 ms", "÷ curl", "CPU ms", "÷ curl")
	base, baseCPU := median(res[0], false), median(res[0], true)
	for i, c := range cmds {
		m, mc := median(res[i], false), median(res[i], true)
		fmt.Printf("%-36s %10.2f %10.2f %10.2f %8.2f× %10.2f %8.2f×\n", c.name,
			ms(quantile(res[i], 0.1)), ms(m), ms(quantile(res[i], 0.9)), float64(m)/float64(base), ms(mc), float64(mc)/float64(baseCPU))
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

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
