package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	collogsv1 "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
)

// TestAuditExportFromUserConfig: with audit_export.json naming a loopback
// collector, a get's audit line reaches it as an OTLP log record when the
// command ends; with the collector down the get is unaffected and the
// loss is said on stderr.
func TestAuditExportFromUserConfig(t *testing.T) {
	var (
		mu      sync.Mutex
		records []string
	)
	// The collector decodes the official ExportLogsServiceRequest
	// (protobuf, what auditexport sends); each record is kept as its
	// protojson text.
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req collogsv1.ExportLogsServiceRequest
		if r.URL.Path != "/v1/logs" || proto.Unmarshal(body, &req) != nil {
			w.WriteHeader(400)
			return
		}
		mu.Lock()
		for _, rl := range req.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				for _, rec := range sl.LogRecords {
					records = append(records, protojson.Format(rec))
				}
			}
		}
		mu.Unlock()
	}))
	defer collector.Close()
	_, egressOpts := publicSite(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "hello") }))
	dir := testLayers(t).configDir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	writeExport := func(endpoint string) {
		if err := os.WriteFile(filepath.Join(dir, "audit_export.json"), []byte(`{"schema_version": 1, "endpoint": "`+endpoint+`"}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	root := newRoot(t)

	writeExport(collector.URL)
	ocfetch(t, cliOptions{egress: egressOpts}, "--root", root, "get", "--yes", "https://example.com/secret-path?token=abc").want(t, exitOK, []string{"hello"}, nil)
	mu.Lock()
	got := fmt.Sprint(records)
	n := len(records)
	mu.Unlock()
	if n != 1 || !strings.Contains(got, "GET example.com") || !strings.Contains(got, "ocfetch.outcome") {
		t.Errorf("records = %s; want the one audit line", got)
	}
	if strings.Contains(got, "secret-path") || strings.Contains(got, "token") {
		t.Errorf("a record holds the URL's path or query: %s", got)
	}

	down := "http://127.0.0.1:" + strconv.Itoa(int(testnet.RefusedPort(t)))
	writeExport(down)
	ocfetch(t, cliOptions{egress: egressOpts}, "--root", root, "get", "--yes", "https://example.com/").want(t, exitOK, []string{"hello"},
		[]string{"audit export: 1 of 1 records did not reach the collector"})
}
