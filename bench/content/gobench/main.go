// Command gobench is the Go side of the content conversion benchmark in
// bench/content (see run.sh there). It converts each file repeatedly with
// one pipeline and prints one JSON object per file, then one with the
// process's peak RSS, in the same shape as bench.mjs:
//
//	gobench -pipeline markdown FILE...
//
// Pipelines:
//
//	parse           golang.org/x/net/html.Parse alone (the floor)
//	markdown        content.Convert, whole page (Options.FullPage)
//	extract         content.Convert, main-content extraction (the default)
//	text            content.Convert, plain text of the whole page
//	h2m-asis        html-to-markdown v2 + table plugin, ConvertReader on the bytes
//	readability-asis go-readability FromReader, RenderHTML, then h2m-asis on that HTML
//
// The two "asis" pipelines are the libraries used as they come (parse,
// render, re-parse), for comparison with the tuned ones.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"time"

	readability "codeberg.org/readeck/go-readability/v2"
	h2m "github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"

	"github.com/ocfetch/ocfetch/content"
)

var fenceRE = regexp.MustCompile("(?m)^```")

func main() {
	pipeline := flag.String("pipeline", "markdown", "parse|markdown|extract|text|h2m-asis|readability-asis")
	minDur := flag.Duration("min", 3*time.Second, "minimum timed duration per file")
	minIters := flag.Int("iters", 10, "minimum iterations per file")
	baseURL := flag.String("url", "https://example.org/page", "page URL for link resolution")
	flag.Parse()

	u, err := url.Parse(*baseURL)
	if err != nil {
		fail(err)
	}
	conv := h2m.NewConverter(h2m.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()))
	run := map[string]func([]byte) (string, error){
		"parse": func(b []byte) (string, error) {
			_, err := html.Parse(bytes.NewReader(b))
			return "", err
		},
		"markdown": convert(content.Options{Format: content.Markdown, BaseURL: u, FullPage: true}),
		"extract":  convert(content.Options{Format: content.Markdown, BaseURL: u}),
		"text":     convert(content.Options{Format: content.Text, BaseURL: u, FullPage: true}),
		"h2m-asis": func(b []byte) (string, error) {
			out, err := conv.ConvertReader(bytes.NewReader(b), h2m.WithDomain(u.String()))
			return string(out), err
		},
		"readability-asis": func(b []byte) (string, error) {
			art, err := readability.FromReader(bytes.NewReader(b), u)
			if err != nil {
				return "", err
			}
			var h bytes.Buffer
			if art.Node == nil {
				h.Write(b)
			} else if err := art.RenderHTML(&h); err != nil {
				return "", err
			}
			out, err := conv.ConvertReader(&h, h2m.WithDomain(u.String()))
			return string(out), err
		},
	}[*pipeline]
	if run == nil || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: gobench -pipeline parse|markdown|extract|text|h2m-asis|readability-asis FILE...")
		os.Exit(2)
	}

	enc := json.NewEncoder(os.Stdout)
	for _, file := range flag.Args() {
		body, err := os.ReadFile(file)
		if err != nil {
			fail(err)
		}
		var out string
		for range 3 { // warm up
			if out, err = run(body); err != nil {
				fail(err)
			}
		}
		cpu0 := cpuTime()
		start := time.Now()
		iters := 0
		for time.Since(start) < *minDur || iters < *minIters {
			if out, err = run(body); err != nil {
				fail(err)
			}
			iters++
		}
		wall := time.Since(start)
		cpu := cpuTime() - cpu0
		enc.Encode(map[string]any{
			"pipeline":   "go-" + *pipeline,
			"file":       filepath.Base(file),
			"iters":      iters,
			"ms_per_op":  round3(float64(wall) / float64(iters) / 1e6),
			"cpu_ms_op":  round3(float64(cpu) / float64(iters) / 1e6),
			"out_chars":  len([]rune(out)),
			"fences":     len(fenceRE.FindAllString(out, -1)),
			"body_bytes": len(body),
		})
	}
	enc.Encode(map[string]any{"pipeline": "go-" + *pipeline, "peak_rss_kib": peakRSSKiB()})
}

func convert(opts content.Options) func([]byte) (string, error) {
	return func(b []byte) (string, error) {
		d, err := content.Convert(context.Background(), b, "text/html; charset=utf-8", opts)
		return d.Text, err
	}
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gobench:", err)
	os.Exit(1)
}
