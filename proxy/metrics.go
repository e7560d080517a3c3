package proxy

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The proxy's Prometheus metrics (issue 24), served by [Server.MetricsHandler]
// in the Prometheus text exposition format (version 0.0.4). The format is
// written here, not by prometheus/client_golang: that module, with the
// protobuf runtime it needs, would push the release binary past its 16
// MiB budget (docs/PERFORMANCE.md); the tests parse what is served with
// prometheus/common's own text parser. Every label takes values from a
// fixed set (methods, directions, reason codes), so no client can grow the
// series without bound.
const (
	MetricRequests    = "ocfetch_proxy_requests_total"
	MetricRefusals    = "ocfetch_proxy_refusals_total"
	MetricBytes       = "ocfetch_proxy_bytes_total"
	MetricActive      = "ocfetch_proxy_active_connections"
	MetricDuration    = "ocfetch_proxy_request_duration_seconds"
	metricsPath       = "/metrics"
	metricsTextFormat = "text/plain; version=0.0.4; charset=utf-8"
)

// durationBuckets are the upper bounds of the latency histogram, in
// seconds: from a refusal (sub-millisecond) to a long tunnel.
var durationBuckets = []float64{0.001, 0.005, 0.025, 0.1, 0.5, 1, 5, 30, 120, 600}

// knownMethods are the method label's values; any other method is "other".
var knownMethods = []string{"CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"}

// metrics are the counters one Server keeps. The zero value is ready.
type metrics struct {
	mu       sync.Mutex
	requests map[string]uint64 // by method label
	refusals map[string]uint64 // by reason code
	up, down atomic.Uint64
	buckets  [11]uint64 // len(durationBuckets) + 1 (+Inf)
	sum      float64
	count    uint64
}

// observe counts one exchange, at its audit line.
func (m *metrics) observe(method, reason string, refused bool, up, down int64, d time.Duration) {
	if up > 0 {
		m.up.Add(uint64(up))
	}
	if down > 0 {
		m.down.Add(uint64(down))
	}
	label := "other"
	for _, k := range knownMethods {
		if method == k {
			label = k
			break
		}
	}
	sec := d.Seconds()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.requests == nil {
		m.requests, m.refusals = map[string]uint64{}, map[string]uint64{}
	}
	m.requests[label]++
	if refused && isCode(reason) {
		m.refusals[reason]++
	}
	i := sort.SearchFloat64s(durationBuckets, sec)
	m.buckets[i]++
	m.sum += sec
	m.count++
}

// isCode reports whether s looks like a reason code (lowercase letters and
// underscores): a label value never carries anything else.
func isCode(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < 'a' || s[i] > 'z') && s[i] != '_' {
			return false
		}
	}
	return true
}

// write renders the metrics in the text exposition format.
func (m *metrics) write(w io.Writer, active int) {
	m.mu.Lock()
	requests := sortedKeys(m.requests)
	reqVals := make([]uint64, len(requests))
	for i, k := range requests {
		reqVals[i] = m.requests[k]
	}
	reasons := sortedKeys(m.refusals)
	refVals := make([]uint64, len(reasons))
	for i, k := range reasons {
		refVals[i] = m.refusals[k]
	}
	buckets, sum, count := m.buckets, m.sum, m.count
	m.mu.Unlock()

	var b strings.Builder
	b.WriteString("# HELP " + MetricRequests + " Requests and tunnels the proxy handled (admitted or refused), by method (a SOCKS5 CONNECT counts as CONNECT).\n")
	b.WriteString("# TYPE " + MetricRequests + " counter\n")
	for i, k := range requests {
		fmt.Fprintf(&b, "%s{method=%q} %d\n", MetricRequests, k, reqVals[i])
	}
	b.WriteString("# HELP " + MetricRefusals + " Requests refused or failed, by reason code (the audit line's outcome).\n")
	b.WriteString("# TYPE " + MetricRefusals + " counter\n")
	for i, k := range reasons {
		fmt.Fprintf(&b, "%s{reason=%q} %d\n", MetricRefusals, k, refVals[i])
	}
	b.WriteString("# HELP " + MetricBytes + " Bytes relayed, up (client to server) and down (server to client).\n")
	b.WriteString("# TYPE " + MetricBytes + " counter\n")
	fmt.Fprintf(&b, "%s{direction=\"down\"} %d\n%s{direction=\"up\"} %d\n", MetricBytes, m.down.Load(), MetricBytes, m.up.Load())
	b.WriteString("# HELP " + MetricActive + " Client connections being served now.\n")
	b.WriteString("# TYPE " + MetricActive + " gauge\n")
	fmt.Fprintf(&b, "%s %d\n", MetricActive, active)
	b.WriteString("# HELP " + MetricDuration + " Time from a request's arrival to its audit line (a tunnel's whole life).\n")
	b.WriteString("# TYPE " + MetricDuration + " histogram\n")
	var cum uint64
	for i, le := range durationBuckets {
		cum += buckets[i]
		fmt.Fprintf(&b, "%s_bucket{le=\"%s\"} %d\n", MetricDuration, strconv.FormatFloat(le, 'g', -1, 64), cum)
	}
	cum += buckets[len(durationBuckets)]
	fmt.Fprintf(&b, "%s_bucket{le=\"+Inf\"} %d\n", MetricDuration, cum)
	fmt.Fprintf(&b, "%s_sum %s\n%s_count %d\n", MetricDuration, strconv.FormatFloat(sum, 'g', -1, 64), MetricDuration, count)
	io.WriteString(w, b.String())
}

func sortedKeys(m map[string]uint64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// MetricsHandler serves the proxy's metrics at /metrics (anything else is
// 404). With credentials (Options.Auth) a scrape must present them as
// "Authorization: Basic" (the same user and password as the proxy);
// otherwise it is 401. Serve it on a loopback listener only (the CLI's
// --metrics checks the address).
func (s *Server) MetricsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != metricsPath {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if s.auth != nil && !s.scrapeAuthorized(r.Header.Get("Authorization")) {
			w.Header().Set("WWW-Authenticate", `Basic realm="ocfetch proxy metrics"`)
			http.Error(w, "proxy_auth_required: the metrics need the proxy's credentials", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", metricsTextFormat)
		w.Header().Set("Cache-Control", "no-store")
		s.metrics.write(w, len(s.sem))
	})
}

func (s *Server) scrapeAuthorized(v string) bool {
	scheme, b64, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return false
	}
	user, pass, ok := strings.Cut(string(raw), ":")
	return ok && s.auth.match(user, pass)
}
