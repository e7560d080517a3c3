package content

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// Issue 16.7: what extraction used to lose.

func articlePage(inner string) string {
	prose := strings.Repeat("This paragraph is part of the article and says something useful about the topic. ", 6)
	return `<!DOCTYPE html><html><head><title>Guide</title></head><body>
<nav><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/blog">Blog</a></nav>
<main><article><h1>The guide</h1><p>` + prose + `</p>` + inner + `<p>` + prose + `</p></article></main>
<footer>© Example</footer></body></html>`
}

func TestExtractionKeepsCodeLanguages(t *testing.T) {
	tests := []struct{ name, block, want string }{
		{"language- class on code", `<pre><code class="language-go">func main() {}</code></pre>`, "```go\nfunc main() {}\n```"},
		{"lang- class on pre", `<pre class="lang-rust">fn main() {}</pre>`, "```rust\nfn main() {}\n```"},
		{"Sphinx wrapper", `<div class="highlight-python3 notranslate"><div class="highlight"><pre><span class="kn">import</span> <span class="nn">os</span></pre></div></div>`, "```python3\nimport os\n```"},
		{"Sphinx default lexer", `<div class="highlight-default notranslate"><div class="highlight"><pre>print(1)</pre></div></div>`, "```python\nprint(1)\n```"},
		{"none", `<div class="highlight-none"><div class="highlight"><pre>plain</pre></div></div>`, "```\nplain\n```"},
	}
	for _, tt := range tests {
		for _, opts := range []Options{{}, {FullPage: true}} {
			d, err := Convert(context.Background(), []byte(articlePage(tt.block)), "text/html", opts)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(d.Text, tt.want) {
				t.Errorf("%s (full page %v): want %q in\n%s", tt.name, opts.FullPage, tt.want, d.Text)
			}
		}
	}
}

func TestExtractionKeepsFigureImages(t *testing.T) {
	base, _ := url.Parse("https://example.com/guide/")
	page := articlePage(`<figure><img src="diagram.png" alt=""><figcaption>The pipeline</figcaption></figure>
<p><img src="spacer.gif" alt=""> decorative spacer</p>`)
	for _, opts := range []Options{{BaseURL: base}, {BaseURL: base, FullPage: true}} {
		d, err := Convert(context.Background(), []byte(page), "text/html", opts)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(d.Text, "![](https://example.com/guide/diagram.png)") {
			t.Errorf("full page %v: want the figure's image as ![](url) in\n%s", opts.FullPage, d.Text)
		}
		if strings.Contains(d.Text, "spacer.gif") {
			t.Errorf("full page %v: a decorative image (alt=\"\" outside a figure) is shown:\n%s", opts.FullPage, d.Text)
		}
	}
}

// TestExtractionFallsBackToWholePage: an article of under a quarter of
// the page's text, or one that is a lone table, gives the whole page.
func TestExtractionFallsBackOnLoneTable(t *testing.T) {
	rows := strings.Repeat("<tr><td>option-name</td><td>what this option does when it is set</td></tr>", 30)
	prose := strings.Repeat("Explanatory prose around the table that a reader needs to understand it. ", 8)
	loneTable := `<html><body><h1>Chapter 3. Tools</h1><p class="intro">` + prose + `</p>
<div class="section"><div class="table"><table class="data"><thead><tr><th>Option</th><th>Meaning</th></tr></thead><tbody>` + rows + `</tbody></table></div></div>
<h2>3.2 Next section</h2><p>` + prose + `</p></body></html>`
	d, err := Convert(context.Background(), []byte(loneTable), "text/html", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Chapter 3. Tools", "| Option | Meaning |", "3.2 Next section", "Explanatory prose"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("lone table: want %q (the whole page) in\n%.600s", want, d.Text)
		}
	}
}

// TestExtractionFallsBackOnOneSection: a chapter of sibling sections
// (DocBook's div.section, as in the Debian reference) from which
// readability keeps one section gives the whole chapter.
func TestExtractionFallsBackOnOneSection(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><div class="chapter"><h1>Chapter 7. GUI System</h1>`)
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, `<div class="section"><h2>7.%d. Section %d</h2><table><tr><td>tool-%d</td><td>%s</td></tr></table></div>`,
			i, i, i, strings.Repeat("listed words of a table ", 10))
	}
	fmt.Fprintf(&b, `<div class="section"><div class="body"><p>%s</p><p>%s</p></div></div>`,
		strings.Repeat("One long section of prose that readability scores highest. ", 30), strings.Repeat("More of it. ", 30))
	b.WriteString(`</div></body></html>`)
	d, err := Convert(context.Background(), []byte(b.String()), "text/html", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Chapter 7. GUI System", "## 7.1. Section 1", "## 7.10. Section 10", "One long section"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("want %q (the whole chapter) in\n%.800s", want, d.Text)
		}
	}
}
