package auditexport

import (
	"errors"
	"strings"
	"testing"
)

// TestParseConfigByteOrderMark: an audit_export.json saved with a byte
// order mark (Notepad's "UTF-8 with BOM", PowerShell 5's UTF-16) is
// refused by name, with the fix; CRLF line ends are JSON white space.
func TestParseConfigByteOrderMark(t *testing.T) {
	doc := "{\r\n  \"schema_version\": 1,\r\n  \"endpoint\": \"http://127.0.0.1:4318/v1/logs\"\r\n}\r\n"
	if _, err := ParseConfig([]byte(doc)); err != nil {
		t.Fatalf("CRLF document: %v", err)
	}
	for name, data := range map[string]string{
		"UTF-8 BOM": "\ufeff" + doc,
		"UTF-16LE":  "\xff\xfe{\x00}\x00",
	} {
		_, err := ParseConfig([]byte(data))
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "byte order mark") || !strings.Contains(err.Error(), "without a BOM") {
			t.Errorf("%s: %v; want ErrConfig naming the byte order mark and the fix", name, err)
		}
	}
}
