package proxy

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The proxy's Prometheus metrics (issue 24), served by [Server.MetricsHandler]
// through prometheus/client_golang's promhttp from a registry of the
// Server's own (not the process-wide default registry: two servers in one
// process, as in the tests, keep separate counts, and nothing another
// package registers is served). Every label takes values from a fixed set
// (methods, directions, reason codes), so no client can grow the series
// without bound.
const (
	MetricRequests = "ocfetch_proxy_requests_total"
	MetricRefusals = "ocfetch_proxy_refusals_total"
	MetricBytes    = "ocfetch_proxy_bytes_total"
	MetricActive   = "ocfetch_proxy_active_connections"
	MetricDuration = "ocfetch_proxy_request_duration_seconds"
	metricsPath    = "/metrics"
)

// durationBuckets are the upper bounds of the latency histogram, in
// seconds: from a refusal (sub-millisecond) to a long tunnel.
var durationBuckets = []float64{0.001, 0.005, 0.025, 0.1, 0.5, 1, 5, 30, 120, 600}

// knownMethods are the method label's values; any other method is "other".
var knownMethods = []string{"CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"}

// metrics are the collectors of one Server, in its own registry.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec // by method label
	refusals *prometheus.CounterVec // by reason code
	up, down prometheus.Counter
	duration prometheus.Histogram
	handler  http.Handler
}

// newMetrics registers the collectors; active reports the connections
// being served at scrape time.
func newMetrics(active func() float64) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRequests,
			Help: "Requests and tunnels the proxy handled (admitted or refused), by method (a SOCKS5 CONNECT counts as CONNECT).",
		}, []string{"method"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRefusals,
			Help: "Requests refused or failed, by reason code (the audit line's outcome).",
		}, []string{"reason"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    MetricDuration,
			Help:    "Time from a request's arrival to its audit line (a tunnel's whole life).",
			Buckets: durationBuckets,
		}),
	}
	bytes := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: MetricBytes,
		Help: "Bytes relayed, up (client to server) and down (server to client).",
	}, []string{"direction"})
	m.up, m.down = bytes.WithLabelValues("up"), bytes.WithLabelValues("down")
	m.reg.MustRegister(m.requests, m.refusals, bytes, m.duration,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: MetricActive,
			Help: "Client connections being served now.",
		}, active))
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		// A failed collection is a 500 with no partial body: the
		// collectors above cannot fail, so this is never seen.
		ErrorHandling: promhttp.HTTPErrorOnError,
		// At most one scrape at a time: another one meanwhile is
		// answered 503 at once (promhttp), so scrapes cannot pile up
		// work; two scrapers (an HA pair) may see an occasional 503.
		MaxRequestsInFlight: 1,
		Timeout:             10 * time.Second,
	})
	return m
}

// observe counts one exchange, at its audit line.
func (m *metrics) observe(method, reason string, refused bool, up, down int64, d time.Duration) {
	if up > 0 {
		m.up.Add(float64(up))
	}
	if down > 0 {
		m.down.Add(float64(down))
	}
	label := "other"
	for _, k := range knownMethods {
		if method == k {
			label = k
			break
		}
	}
	m.requests.WithLabelValues(label).Inc()
	if refused && isCode(reason) {
		m.refusals.WithLabelValues(reason).Inc()
	}
	m.duration.Observe(d.Seconds())
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

// MetricsHandler serves the proxy's metrics at /metrics (anything else is
// 404), in the format the scraper negotiates (Prometheus text by
// default). With credentials (Options.Auth) a scrape must present them as
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
		if s.auth != nil && !s.basicAuthorized(r.Header.Get("Authorization")) {
			w.Header().Set("WWW-Authenticate", `Basic realm="ocfetch proxy metrics"`)
			http.Error(w, "proxy_auth_required: the metrics need the proxy's credentials", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		s.metrics.handler.ServeHTTP(w, r)
	})
}
