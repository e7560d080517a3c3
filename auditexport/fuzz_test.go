package auditexport

import (
	"errors"
	"testing"
)

// FuzzConfig: audit_export.json's parser never panics, and an endpoint it
// accepts is one New accepts.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{
		`{"schema_version": 1, "endpoint": "http://127.0.0.1:4318"}`,
		`{"schema_version": 1, "endpoint": "https://otel.corp.example/v1/logs"}`,
		`{"schema_version": 1}`, `{"endpoint": "http://x"}`, `{"schema_version": 1, "endpoint": "http://u:p@x"}`,
		`{"schema_version": 1, "endpoint": "x", "endpoint": "y"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ep, err := ParseConfig(data)
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error %v does not wrap ErrConfig", err)
			}
			return
		}
		if _, err := ParseEndpoint(ep); err != nil {
			t.Fatalf("accepted endpoint %q that ParseEndpoint refuses: %v", ep, err)
		}
	})
}
