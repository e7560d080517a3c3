// Command runstart times whole `ocfetch run -- true` processes — the cost
// of starting the sandbox — for one or more ocfetch binaries side by side,
// interleaved round by round (the order rotating) so that the machine's
// load falls on all of them alike. Wall time and CPU time (user + system
// of ocfetch and everything it waited for) are reported as medians, with
// the 10th and 90th percentiles of wall time. The workspace is a
// temporary directory; nothing is dialled. Run it through
// bench/runstart/run.sh, which builds the binaries.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ocfetch/ocfetch/bench/internal/benchws"
)

func main() {
	bins := flag.String("ocfetch", "", "comma-separated ocfetch binaries to time side by side (required)")
	n := flag.Int("n", 100, "rounds (1–2000)")
	limit := flag.Duration("limit", 5*time.Minute, "stop after this long, whatever -n says")
	flag.Parse()
	if *bins == "" || *n < 1 || *n > 2000 {
		fmt.Fprintln(os.Stderr, "usage: runstart -ocfetch BIN[,BIN...] [-n ROUNDS]")
		os.Exit(2)
	}
	if err := run(strings.Split(*bins, ","), *n, *limit); err != nil {
		fmt.Fprintln(os.Stderr, "runstart:", err)
		os.Exit(1)
	}
}

type sample struct{ wall, cpu time.Duration }

func run(bins []string, n int, limit time.Duration) error {
	root, err := os.MkdirTemp("", "runstart")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	once := func(bin string) (sample, error) {
		c := exec.Command(bin, "--root", root, "run", "--", "true")
		start := time.Now()
		if out, err := c.CombinedOutput(); err != nil {
			return sample{}, fmt.Errorf("%s run -- true: %v\n%s", bin, err, out)
		}
		return sample{time.Since(start), c.ProcessState.UserTime() + c.ProcessState.SystemTime()}, nil
	}
	for _, b := range bins { // warm up, and check each runs
		for range 3 {
			if _, err := once(b); err != nil {
				return err
			}
		}
	}
	res := make([][]sample, len(bins))
	rounds, err := benchws.Interleave(n, len(bins), limit, func(i int) error {
		s, err := once(bins[i])
		res[i] = append(res[i], s)
		return err
	})
	if err != nil {
		return err
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("runstart %s, %d interleaved rounds of `ocfetch run -- true`, load %s\n",
		time.Now().UTC().Format(time.RFC3339), rounds, strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Printf("%-24s %9s %10s %9s %8s %9s %8s\n", "binary", "p10 ms", "median ms", "p90 ms", "÷ first", "CPU ms", "÷ first")
	w0, c0 := quantile(res[0], 0.5, false), quantile(res[0], 0.5, true)
	for i, b := range bins {
		w, c := quantile(res[i], 0.5, false), quantile(res[i], 0.5, true)
		fmt.Printf("%-24s %9.2f %10.2f %9.2f %7.2f× %9.2f %7.2f×\n", filepath.Base(b),
			ms(quantile(res[i], 0.1, false)), ms(w), ms(quantile(res[i], 0.9, false)), float64(w)/float64(w0), ms(c), float64(c)/float64(c0))
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func quantile(s []sample, q float64, cpu bool) time.Duration {
	v := make([]time.Duration, len(s))
	for i, x := range s {
		v[i] = x.wall
		if cpu {
			v[i] = x.cpu
		}
	}
	slices.Sort(v)
	return v[int(q*float64(len(v)-1))]
}
