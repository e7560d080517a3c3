package content

import (
	"context"
	"strings"
	"testing"
)

// TestJavaScriptNote is issue 16.5's note: a page that yields almost no
// text but has scripts says it may need JavaScript; a short page without
// scripts, and a real article with scripts, do not.
func TestJavaScriptNote(t *testing.T) {
	article := "<p>" + strings.Repeat("Plenty of words in a real article. ", 20) + "</p>"
	tests := []struct {
		name, body string
		want       bool
	}{
		{"react shell", `<!DOCTYPE html><html><head><title>App</title><SCRIPT type="module" src="/assets/index.js"></SCRIPT></head><body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>`, true},
		{"inline loader", `<html><body><div id=app>Loading…</div><script>render()</script></body></html>`, true},
		{"short page, no script", `<html><body><p>Hello.</p></body></html>`, false},
		{"article with scripts", `<html><head><script src=a.js></script></head><body>` + article + `</body></html>`, false},
	}
	for _, tt := range tests {
		for _, opts := range []Options{{}, {Format: Text}, {FullPage: true}} {
			d, err := Convert(context.Background(), []byte(tt.body), "text/html", opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := containsNote(d, "this page may need JavaScript"); got != tt.want {
				t.Errorf("%s %+v: note %v (notes %q); want %v", tt.name, opts, got, d.Notes, tt.want)
			}
		}
	}
}
