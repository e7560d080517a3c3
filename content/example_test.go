package content_test

import (
	"context"
	"fmt"
	"net/url"

	"github.com/ocfetch/ocfetch/content"
)

func ExampleConvert() {
	page := []byte(`<html><head><title>Results</title><script>var analytics = [];</script></head>
<body><nav><a href="/">Home</a></nav>
<h1>Results</h1>
<table><tr><th>District</th><th>2023</th><th>2024</th><th>Change</th></tr>
<tr><td>North</td><td>412</td><td>455</td><td>+10.4%</td></tr></table>
<pre>go test ./...</pre>
<p>See <a href="details.html">details</a>.</p></body></html>`)
	base, _ := url.Parse("https://example.org/2026/results")
	doc, err := content.Convert(context.Background(), page, "text/html; charset=utf-8",
		content.Options{BaseURL: base, FullPage: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(doc.Title, "/", doc.Format)
	fmt.Println(doc.Text)
	// Output:
	// Results / markdown
	// [Home](https://example.org/)
	//
	// # Results
	//
	// | District | 2023 | 2024 | Change |
	// |---|---|---|---|
	// | North | 412 | 455 | +10.4% |
	//
	// ```
	// go test ./...
	// ```
	//
	// See [details](https://example.org/2026/details.html).
}

func ExamplePaginate() {
	text := "Grüße aus Köln! This document is read in windows of 24 characters."
	for start := 0; ; {
		page := content.Paginate(text, start, 24)
		fmt.Printf("%q truncated=%v next=%d remaining=%d\n", page.Content, page.Truncated, page.NextStartIndex, page.Remaining)
		if !page.Truncated {
			break
		}
		start = page.NextStartIndex
	}
	past := content.Paginate(text, 500, 24)
	fmt.Println(past.PastEnd(), past.Total)
	// Output:
	// "Grüße aus Köln! This doc" truncated=true next=24 remaining=42
	// "ument is read in windows" truncated=true next=48 remaining=18
	// " of 24 characters." truncated=false next=66 remaining=0
	// true 66
}
