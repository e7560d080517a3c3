package content

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/content/internal/htmlparse"
	"github.com/ocfetch/ocfetch/internal/testsupport/testcpu"
	"github.com/ocfetch/ocfetch/internal/testsupport/testpage"
	"golang.org/x/net/html"
)

// benchPages are the inputs shared with the Node comparison in
// bench/content: the Go spec (large, 600+ code blocks), the memory model
// (medium) and a news page with navigation, sidebars and a data table.
var benchPages = []struct{ name, file, url string }{
	{"spec", "go_spec.html", "https://go.dev/ref/spec"},
	{"mem", "go_mem.html", "https://go.dev/ref/mem"},
	{"news", "news.html", "https://news.example/2026/11/30/new-homes-survey"},
}

func readBenchPage(b testing.TB, file string) []byte {
	b.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkConvert measures Convert end to end: markdown is the whole-page
// path (FullPage), extract the default main-content path.
func BenchmarkConvert(b *testing.B) {
	for _, p := range benchPages {
		body := readBenchPage(b, p.file)
		u, _ := url.Parse(p.url)
		for _, mode := range []struct {
			name string
			opts Options
		}{
			{"markdown", Options{Format: Markdown, BaseURL: u, FullPage: true}},
			{"extract", Options{Format: Markdown, BaseURL: u}},
			{"text", Options{Format: Text, BaseURL: u, FullPage: true}},
		} {
			b.Run(p.name+"/"+mode.name, func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Convert(context.Background(), body, "text/html; charset=utf-8", mode.opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkParseOnly is the floor: parsing with golang.org/x/net/html alone.
func BenchmarkParseOnly(b *testing.B) {
	for _, p := range benchPages {
		body := readBenchPage(b, p.file)
		b.Run(p.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := html.Parse(bytes.NewReader(body)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseBounded is the parse Convert does: the copy of x/net/html's
// tree construction with its work budget (internal/htmlparse), to compare
// with BenchmarkParseOnly in one run.
func BenchmarkParseBounded(b *testing.B) {
	for _, p := range benchPages {
		body := readBenchPage(b, p.file)
		b.Run(p.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := htmlparse.Parse(context.Background(), bytes.NewReader(body), treeBudget(len(body))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPaginate(b *testing.B) {
	text := string(bytes.Repeat([]byte("héllo wörld, ünïcode "), 50_000))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		for start := 0; ; {
			p := Paginate(text, start, 100_000)
			if !p.Truncated {
				break
			}
			start = p.NextStartIndex
		}
	}
}

// BenchmarkPaginateFits is the usual fetch: a 10 KB page, mostly ASCII,
// that fits the window whole and is still counted for Total.
func BenchmarkPaginateFits(b *testing.B) {
	text := strings.Repeat("Plain words of a page, and one é. ", 300)[:10_000]
	b.SetBytes(int64(len(text)))
	defer reportCPU(b, testcpu.Now())
	for b.Loop() {
		if p := Paginate(text, 0, 1_000_000); p.Truncated {
			b.Fatal("truncated")
		}
	}
}

// BenchmarkConvertJSON is a JSON body pretty-printed: the structure scan
// that bounds the indented size, then json.Indent.
func BenchmarkConvertJSON(b *testing.B) {
	body := []byte(`{"items": [` + strings.Repeat(`{"id": 12345, "name": "a \"quoted\" name", "tags": ["x", "y"], "ok": true},`, 20000) + `{}]}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if d, err := Convert(context.Background(), body, "application/json", Options{}); err != nil || d.Notes != nil {
			b.Fatal(err, d.Notes)
		}
	}
}

// tenKBPage is the 10 KB HTML page of fetch's BenchmarkLoopbackFetch.
var tenKBPage = testpage.TenKB()

// BenchmarkConvertRaw is a raw fetch's conversion of a 10 KB UTF-8 page
// (the body handed over, as the Fetch tool does) and its pagination in a
// window it fits: a validity check, the title and the page itself, with
// nothing copied.
func BenchmarkConvertRaw(b *testing.B) {
	b.SetBytes(int64(len(tenKBPage)))
	b.ReportAllocs()
	defer reportCPU(b, testcpu.Now())
	for b.Loop() {
		d, err := Convert(context.Background(), tenKBPage, "text/html; charset=utf-8", Options{Format: Raw, OwnBody: true})
		if err != nil || d.Title != "Ten KB" || d.Notes != nil {
			b.Fatal(err, d.Title, d.Notes)
		}
		if p := Paginate(d.Text, 0, 1_000_000); p.Truncated || len(p.Content) != len(tenKBPage) {
			b.Fatal("paginated", len(p.Content))
		}
	}
}

// reportCPU reports the process's CPU time per op since start (testcpu),
// steadier than wall time on a shared machine.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
}
