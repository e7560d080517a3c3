package robots

import (
	"strings"
	"testing"
)

// BenchmarkParse: a typical file (a few groups, tens of rules).
func BenchmarkParse(b *testing.B) {
	data := []byte(typical)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Parse(data)
	}
}

// BenchmarkCheck: one verdict on the typical file.
func BenchmarkCheck(b *testing.B) {
	r := Parse([]byte(typical))
	for b.Loop() {
		r.Check("ocfetch", "/docs/guide/install.html?lang=en")
	}
}

// BenchmarkCheckHostile: the worst a site can do within MaxBytes: every
// line a wildcard rule that almost matches a long path.
func BenchmarkCheckHostile(b *testing.B) {
	line := "Disallow: /*a*a*a*a*a*a*a*a*b\n"
	data := "User-agent: *\n" + strings.Repeat(line, (MaxBytes-20)/len(line))
	r := Parse([]byte(data))
	path := "/" + strings.Repeat("a", 8<<10)
	b.ResetTimer()
	for b.Loop() {
		if !r.Check("ocfetch", path).Allowed {
			b.Fatal("disallowed")
		}
	}
}

const typical = `# robots.txt of a documentation site
User-agent: *
Disallow: /search
Disallow: /*?session=
Disallow: /private/
Allow: /private/public/
Crawl-delay: 5
Sitemap: https://example.com/sitemap.xml

User-agent: googlebot
User-agent: bingbot
Disallow: /drafts/
Allow: /

User-agent: GPTBot
User-agent: CCBot
Disallow: /

User-agent: ocfetch
Disallow: /api/
Disallow: /*.json$
Allow: /api/docs
`
