package search

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/internal/testsupport/testcpu"
)

// benchAnswer is a backend's answer of n results shaped like the fake
// backends of bench_test.go (about 3 KB for 10): the parse, clean and
// render steps of one call, without the network.
func benchAnswer(backend string, n int) []byte {
	return benchAnswerOf(backend, n, strings.Repeat("snippet text ", 15))
}

// benchAnswerOf is benchAnswer with each result's snippet literal.
func benchAnswerOf(backend string, n int, snippet string) []byte {
	var rs []string
	for i := range n {
		switch backend {
		case "brave":
			rs = append(rs, fmt.Sprintf(`{"type": "search_result", "title": "Result number %d of the benchmark", "url": "https://r%d.example/a/page", "description": "%s"}`, i, i, snippet))
		default:
			rs = append(rs, fmt.Sprintf(`{"url": "https://r%d.example/a/page", "title": "Result number %d of the benchmark", "content": "%s", "engine": "e", "score": 1.0}`, i, i, snippet))
		}
	}
	if backend == "brave" {
		return []byte(`{"type": "search", "query": {"original": "q"}, "web": {"type": "search", "results": [` + strings.Join(rs, ",") + `]}}`)
	}
	return []byte(`{"query": "q", "number_of_results": 10, "results": [` + strings.Join(rs, ",") + `], "answers": [], "suggestions": []}`)
}

func BenchmarkParse(b *testing.B) {
	for name, be := range backends(b) {
		if name == "tavily" {
			continue // searxng's shape with tavily's names: the same work
		}
		body := benchAnswer(name, 10)
		benchParse(b, name, be, body)
		// Non-ASCII text as an answer written with escapes shows it
		// (Python's json.dumps, SearXNG's encoder, by default).
		benchParse(b, name+"-escaped", be, benchAnswerOf(name, 10, strings.Repeat(`caf\u00e9 \"r\u00e9sum\u00e9\" `, 8)))
	}
}

func benchParse(b *testing.B, name string, be Backend, body []byte) {
	b.Run(name, func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		start := testcpu.Now()
		for b.Loop() {
			if _, err := be.Parse(body); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
	})
}

func BenchmarkCleanRender(b *testing.B) {
	hits, err := (&SearXNG{}).Parse(benchAnswer("searxng", 10))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := testcpu.Now()
	for b.Loop() {
		out := Output{Backend: "searxng", Host: "127.0.0.1"}
		out.Results, out.Dropped = clean(hits, DefaultResults)
		out.Count = len(out.Results)
		_ = Render(out)
	}
	b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
}

func BenchmarkDecodeArgs(b *testing.B) {
	b.ReportAllocs()
	start := testcpu.Now()
	defer func() { b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op") }()
	for b.Loop() {
		if _, err := decodeArgs(`{"query": "go generics"}`); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPresent is a call's whole work on an answer after the read:
// the parse, the texts, clean and render (present), for each shape.
func BenchmarkPresent(b *testing.B) {
	for name, be := range backends(b) {
		if name == "tavily" {
			continue
		}
		sh := be.(ownBackend).answer()
		for _, c := range []struct {
			name string
			body []byte
		}{{name, benchAnswer(name, 10)}, {name + "-escaped", benchAnswerOf(name, 10, strings.Repeat(`caf\u00e9 \"r\u00e9sum\u00e9\" `, 8))}} {
			b.Run(c.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(c.body)))
				start := testcpu.Now()
				for b.Loop() {
					out := Output{Backend: name, Host: "127.0.0.1"}
					if _, err := present(sh, c.body, DefaultResults, &out); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
