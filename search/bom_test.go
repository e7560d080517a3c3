package search

import (
	"errors"
	"strings"
	"testing"
)

// TestParseConfigByteOrderMark: a search.json saved by Notepad ("UTF-8
// with BOM") or written by PowerShell 5 (UTF-16) is refused by name, with
// the fix, not as "not valid JSON"; CRLF line ends are JSON white space.
func TestParseConfigByteOrderMark(t *testing.T) {
	doc := "{\r\n  \"schema_version\": 1,\r\n  \"backend\": \"searxng\",\r\n  \"url\": \"http://127.0.0.1:8888/\"\r\n}\r\n"
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
