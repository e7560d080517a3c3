package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
	"time"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	"google.golang.org/protobuf/proto"
)

// exportBench measures what the audit export costs the path users take
// (issue 24: "audit export adds ≤ 5 % CPU per call at 1,000 calls/s"):
// two `ocfetch proxy` processes of the same binary, on the same
// workspace with every policy layer present, one of them exporting every
// audit line over OTLP/HTTP to a collector in this process (the
// collector's CPU is this process's, as it would be another machine's or
// process's in use). Both get the same small CONNECT requests at c.rate
// per second, in interleaved rounds; reported is each proxy's own CPU
// (benchws.CPU: its CPU-time clock, in ns) per request and the
// difference. The collector decodes every request as an
// ExportLogsServiceRequest and counts the records, so the figure is only
// reported when every audit line of the exporting proxy arrived.
func exportBench(c config, root, tmp string, targets []string, layers string) error {
	col := &collector{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: col, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	// The exporting proxy's configuration directory: a copy of the
	// user's (trust store, user rules, credentials) plus audit_export.json.
	home, err := os.UserConfigDir()
	if err != nil {
		return err
	}
	exportHome := filepath.Join(tmp, "export-config")
	if err := os.CopyFS(filepath.Join(exportHome, "ocfetch"), os.DirFS(filepath.Join(home, "ocfetch"))); err != nil {
		return fmt.Errorf("copying the configuration directory: %w", err)
	}
	cfg := fmt.Sprintf(`{"schema_version": 1, "endpoint": "http://%s"}`, ln.Addr())
	if err := os.WriteFile(filepath.Join(exportHome, "ocfetch", "audit_export.json"), []byte(cfg), 0o600); err != nil {
		return err
	}

	plain, err := startOurs(c.ocfetch, root, "")
	if err != nil {
		return err
	}
	defer plain.stop()
	plain.name = "ocfetch proxy"
	exp, err := startOurs(c.ocfetch, root, exportHome)
	if err != nil {
		return err
	}
	defer exp.stop() // a second stop does nothing
	exp.name = "ocfetch proxy +export"
	procs := []*proc{plain, exp}

	fmt.Printf("proxybench -export %s\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Printf("ocfetch %s: %s\n", c.ocfetch, layers)
	fmt.Printf("%d CONNECT requests per proxy in %d interleaved rounds at %d/s (one new connection each), %d concurrent clients, %d warm-up; collector on %s\n\n",
		c.requests, c.rounds, c.rate, c.concurrency, c.warmup, ln.Addr())
	for _, p := range procs {
		if _, err := small(p, "connect", targets, c.warmup, c.concurrency, c.rate, c.limit); err != nil {
			return fmt.Errorf("%s warm-up: %w", p.name, err)
		}
	}
	per := max(c.requests/c.rounds, 1)
	cpu := make([][]float64, len(procs)) // µs per request, per round
	rps := make([][]float64, len(procs))
	for r := range c.rounds {
		for k := range procs {
			i := (k + r) % len(procs)
			p := procs[i]
			cpu0 := p.cpu()
			res, err := small(p, "connect", targets, per, c.concurrency, c.rate, c.limit)
			if err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			cpu[i] = append(cpu[i], float64(p.cpu()-cpu0)/1e3/float64(per))
			rps[i] = append(rps[i], res.rps)
		}
	}
	// Stopping the exporting proxy sends what it still holds; then every
	// request it served must have arrived as a record.
	sent := exp.sent.Load()
	exp.stop()
	if got := col.records.Load(); got != sent {
		return fmt.Errorf("the collector received %d records (%d requests, %d refused) from the exporting proxy, which served %d requests: the export lost lines",
			got, col.requests.Load(), col.refused.Load(), sent)
	}

	fmt.Printf("%-24s %18s %22s\n", "proxy", "req/s", "CPU µs per request")
	for i, p := range procs {
		s := append([]float64(nil), cpu[i]...)
		sort.Float64s(s)
		fmt.Printf("%-24s %18s %22s\n", p.name, medianOf(rps[i]), fmt.Sprintf("%.1f (%.1f–%.1f)", s[len(s)/2], s[0], s[len(s)-1]))
	}
	base, with := median(cpu[0]), median(cpu[1])
	added := (with - base) / base * 100
	fmt.Printf("\nexport adds %+.1f µs per request = %+.1f %% of the proxy's CPU per request (medians; target ≤ 5 %% %s)\n",
		with-base, added, met(added <= 5))
	fmt.Printf("per round, exporting ÷ plain: ")
	for r := range cpu[0] {
		fmt.Printf("%.3f× ", cpu[1][r]/cpu[0][r])
	}
	fmt.Printf("\ncollector: %d records in %d requests, every audit line of the exporting proxy (%d)\n", col.records.Load(), col.requests.Load(), sent)
	fmt.Println("CPU: each proxy process's own CPU time (its CPU-time clock, in ns; benchws.CPU) over its measured rounds, divided by its requests")
	return nil
}

// collector is a minimal OTLP/HTTP logs receiver: it decodes each
// request and counts the log records, answering with an empty
// ExportLogsServiceResponse (full success).
type collector struct {
	requests, records, refused atomic.Int64
}

func (col *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var req collogs.ExportLogsServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &req)
	}
	if err != nil || r.Method != http.MethodPost || r.URL.Path != "/v1/logs" {
		col.refused.Add(1)
		http.Error(w, "not an OTLP logs export", http.StatusBadRequest)
		return
	}
	col.requests.Add(1)
	for _, rl := range req.ResourceLogs {
		for _, sl := range rl.ScopeLogs {
			col.records.Add(int64(len(sl.LogRecords)))
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}
