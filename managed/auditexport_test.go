package managed

import (
	"strings"
	"testing"
)

func TestParseAuditExport(t *testing.T) {
	p, err := Parse([]byte(`{"schema_version": 1, "audit_export": "https://otel.corp.example:4318"}`))
	if err != nil || p.AuditExport != "https://otel.corp.example:4318" {
		t.Fatalf("Parse = %+v, %v; want the endpoint", p, err)
	}
	if p, err := Parse([]byte(`{}`)); err != nil || p.AuditExport != "" {
		t.Errorf("no audit_export: %+v, %v", p, err)
	}
	for _, doc := range []string{`{"audit_export": 4318}`, `{"audit_export": "otel:4318"}`, `{"audit_export": "https://u:p@otel"}`, `{"audit_export": "ftp://otel"}`} {
		if _, err := Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), "audit_export") {
			t.Errorf("Parse(%s) err = %v; want audit_export refused", doc, err)
		}
	}
}
