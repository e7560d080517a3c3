package demo

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// Secret is in the path and query of every demo URL that reaches the
// site; Run checks that no audit line holds it.
const Secret = "demo-secret-token"

// demoSite is the demo's web site: a page, and a path that redirects to
// another loopback port. It counts the requests it gets.
type demoSite struct {
	hits      atomic.Int64
	otherHits atomic.Int64
	otherURL  string
}

const demoPage = `<!doctype html>
<html><head><title>Tide tables</title></head>
<body>
<nav><a href="/">Home</a> · <a href="/about">About</a> · <a href="/contact">Contact</a></nav>
<main><article>
<h1>Tide tables</h1>
<p>High water at <strong>06:12</strong> and <strong>18:40</strong>; low water at 00:05 and 12:27.
The harbour gate opens two hours before high water and closes one hour after it, so plan a
departure for the morning tide if you are heading out past the breakwater.</p>
<ul><li>Spring tides this week</li><li>Harbour gate opens two hours before high water</li></ul>
<p>Tidal predictions are computed for the harbour entrance. Strong westerly winds can raise the
level by up to thirty centimetres; a high pressure system lowers it. See the
<a href="/charts">chart archive</a> for the year's tables.</p>
</article></main>
<footer>© the harbour office · <a href="/privacy">Privacy</a></footer>
</body></html>
`

func (s *demoSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.hits.Add(1)
	switch r.URL.Path {
	case "/", "/tides":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, demoPage)
	case "/moved":
		http.Redirect(w, r, s.otherURL, http.StatusFound)
	default:
		http.NotFound(w, r)
	}
}

// isDemoMarkdown reports whether content is demoPage converted to
// Markdown: emphasis, list items and links in Markdown, no HTML tags.
func isDemoMarkdown(content string) bool {
	for _, want := range []string{"**06:12**", "- Spring tides this week", "[chart archive](http://127.0.0.1:"} {
		if !strings.Contains(content, want) {
			return false
		}
	}
	return !strings.Contains(content, "<p>") && !strings.Contains(content, "<strong>")
}
