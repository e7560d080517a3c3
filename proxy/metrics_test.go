package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/ocfetch/ocfetch/rules"
)

// scrape GETs /metrics from h and parses it with Prometheus's own text
// parser.
func scrape(t *testing.T, h http.Handler, user, pass string) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/metrics", nil)
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ct)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the Prometheus text parser refuses /metrics: %v", err)
	}
	return fams
}

func counter(f map[string]*dto.MetricFamily, name, label, value string) float64 {
	fam, ok := f[name]
	if !ok {
		return -1
	}
	for _, m := range fam.Metric {
		for _, l := range m.Label {
			if l.GetName() == label && l.GetValue() == value {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// TestMetricsScraped: after an admitted tunnel, an admitted request and
// two refusals, /metrics says so in the text format Prometheus parses.
func TestMetricsScraped(t *testing.T) {
	w := newWorld(t, worldOpts{})
	w.rule(rules.Allow, publicHost, 443)
	w.rule(rules.Allow, publicHost, 80)
	c := w.client()
	for _, u := range []string{"https://" + publicHost + "/", "http://" + publicHost + "/"} {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if resp, _ := w.raw(connectHead("unruled.test:443")); resp.StatusCode != 403 {
		t.Fatalf("CONNECT without a rule: %d", resp.StatusCode)
	}
	if resp, _ := w.raw("GET http://" + deniedHost + "/ HTTP/1.1\r\nHost: " + deniedHost + "\r\n\r\n"); resp.StatusCode != 403 {
		t.Fatalf("GET without a rule: %d", resp.StatusCode)
	}
	c.Transport.(*http.Transport).CloseIdleConnections()
	w.waitAudit(4)

	f := scrape(t, w.srv.MetricsHandler(), "", "")
	if got := counter(f, MetricRequests, "method", "CONNECT"); got != 2 {
		t.Errorf("CONNECT requests = %v; want 2 (one admitted, one refused)", got)
	}
	if got := counter(f, MetricRequests, "method", "GET"); got != 2 {
		t.Errorf("GET requests = %v; want 2", got)
	}
	if got := counter(f, MetricRefusals, "reason", "not_approved"); got != 2 {
		t.Errorf("not_approved refusals = %v; want 2", got)
	}
	if got := counter(f, MetricBytes, "direction", "down"); got <= 0 {
		t.Errorf("bytes down = %v; want > 0", got)
	}
	if g := f[MetricActive]; g == nil || g.GetType() != dto.MetricType_GAUGE || g.Metric[0].GetGauge().GetValue() < 0 {
		t.Errorf("active connections gauge = %v", g)
	}
	h := f[MetricDuration]
	if h == nil || h.GetType() != dto.MetricType_HISTOGRAM || h.Metric[0].GetHistogram().GetSampleCount() != 4 {
		t.Fatalf("duration histogram = %v; want 4 samples", h)
	}
	if b := h.Metric[0].GetHistogram().Bucket; len(b) != len(durationBuckets)+1 || b[len(b)-1].GetCumulativeCount() != 4 {
		t.Errorf("buckets = %v", b)
	}
}

func TestMetricsNeedTheProxyCredentials(t *testing.T) {
	creds := &Credentials{User: "ocfetch", Password: "s3cret-pass-word"}
	w := newWorld(t, worldOpts{tune: func(o *Options) { o.Auth = creds }})
	srv := httptest.NewServer(w.srv.MetricsHandler())
	defer srv.Close()
	for _, tc := range []struct {
		user, pass string
		path       string
		want       int
	}{
		{"", "", "/metrics", 401},
		{"ocfetch", "wrong", "/metrics", 401},
		{"ocfetch", "s3cret-pass-word", "/metrics", 200},
		{"ocfetch", "s3cret-pass-word", "/other", 404},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+tc.path, nil)
		if tc.user != "" {
			req.SetBasicAuth(tc.user, tc.pass)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want || strings.Contains(string(body), "s3cret") {
			t.Errorf("%s as %q: %d; want %d (body %q)", tc.path, tc.user, resp.StatusCode, tc.want, body)
		}
	}
	scrape(t, w.srv.MetricsHandler(), "ocfetch", "s3cret-pass-word")
}
