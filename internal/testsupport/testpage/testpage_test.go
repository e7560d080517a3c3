package testpage

import (
	"bytes"
	"strings"
	"testing"
)

// TestTenKB: about 10 KB of HTML, its title and 145 paragraphs, the bytes
// content's benchmark has always written out.
func TestTenKB(t *testing.T) {
	p := TenKB()
	want := "<!doctype html><html><head><title>Ten KB</title></head><body><main>" +
		strings.Repeat("<p>The quick brown fox jumps over the lazy dog, again and again.</p>\n", 145) +
		"</main></body></html>"
	if !bytes.Equal(p, []byte(want)) {
		t.Errorf("TenKB: %d bytes, not the 145-paragraph page (%d bytes)", len(p), len(want))
	}
}
