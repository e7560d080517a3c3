package search

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ocfetch/ocfetch/safetext"
)

// Output is the structured result of a call: the backend, its host, and
// the results in rank order. Every string is the backend's text after
// safetext.
type Output struct {
	Backend string `json:"backend"`
	Host    string `json:"host"`
	Count   int    `json:"count"`
	Results []Hit  `json:"results"`
	// Dropped counts the backend's results left out because their URL is
	// not an absolute http or https URL.
	Dropped int `json:"dropped,omitempty"`
	// Unanswered counts the engines the backend asked that did not answer
	// (SearXNG's unresponsive_engines: a timeout, a rate limit, a
	// CAPTCHA): the results may be incomplete, or missing altogether.
	Unanswered int `json:"unanswered_engines,omitempty"`
}

// Bounds of one result's fields, after safetext.
const (
	maxTitleRunes   = 300
	maxSnippetRunes = 1000
	maxURLBytes     = 2048
)

// clean makes hits safe to show (safetext.Line on every field, bounded
// lengths), drops those without an absolute http(s) URL, keeps at most
// count, and numbers them from 1. dropped counts the hits left out for
// their URL. out is written over hits' storage (the i-th hit kept is
// written once hits[i] has been read): hits is the parse's own.
func clean(hits []Hit, count int) (out []Hit, dropped int) {
	out = hits[:0]
	for _, h := range hits {
		if len(out) == count {
			break
		}
		u := safetext.Line(strings.TrimSpace(h.URL))
		if !webURL(u) {
			dropped++
			continue
		}
		out = append(out, Hit{
			Rank:    len(out) + 1,
			Title:   cut(safetext.Line(strings.TrimSpace(h.Title)), maxTitleRunes),
			URL:     u,
			Snippet: cut(safetext.Line(strings.TrimSpace(h.Snippet)), maxSnippetRunes),
		})
	}
	return out, dropped
}

// cut returns s cut to n runes, then "…". s is valid UTF-8 (safetext.Line
// has run on it).
func cut(s string, n int) string {
	if len(s) <= n { // n bytes are at most n runes
		return s
	}
	i := 0
	for range n {
		if i >= len(s) {
			return s
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if i >= len(s) {
		return s
	}
	return s[:i] + "…"
}

// Render is the text a model reads: one numbered entry per result, its
// title, URL and snippet on their own lines. Plain text, not Markdown
// links: a title cannot break out of its line (safetext.Line removed
// every line break) nor disguise its URL.
func Render(out Output) string { return render(out, false) }

// render is Render. With repoint, each text of out.Results is then the
// returned string's own bytes (out.Results' elements are written): the
// hits may have held views of buffers their call reuses ([viewOf]),
// and none of it is kept.
func render(out Output, repoint bool) string {
	var b strings.Builder
	n := 160 + len(out.Backend) + len(out.Host) // the header and footer lines
	for _, h := range out.Results {
		n += len(h.Title) + len(h.URL) + len(h.Snippet) + 32
	}
	n += 240 // the lines on dropped results and engines that did not answer
	b.Grow(n)
	text := func(s *string) {
		at := b.Len()
		b.WriteString(*s)
		if repoint {
			*s = b.String()[at:] // a strings.Builder never changes what it holds
		}
	}
	b.WriteString("Search results from ")
	b.WriteString(out.Backend)
	b.WriteString(" (")
	b.WriteString(out.Host)
	b.WriteString("): ")
	switch out.Count {
	case 0:
		b.WriteString("no results.\n")
	case 1:
		b.WriteString("1 result.\n")
	default:
		b.WriteString(strconv.Itoa(out.Count))
		b.WriteString(" results.\n")
	}
	// The structured output's count alone would leave a model reading
	// "no results." when the backend answered only links it cannot use.
	switch out.Dropped {
	case 0:
	case 1:
		b.WriteString("1 more result was left out: its URL is not an http or https URL.\n")
	default:
		b.WriteString(strconv.Itoa(out.Dropped))
		b.WriteString(" more results were left out: their URLs are not http or https URLs.\n")
	}
	switch out.Unanswered {
	case 0:
	case 1:
		b.WriteString("1 of the backend's engines did not answer (a timeout, a rate limit or a CAPTCHA): the results may be incomplete; searching again later may find more.\n")
	default:
		b.WriteString(strconv.Itoa(out.Unanswered))
		b.WriteString(" of the backend's engines did not answer (a timeout, a rate limit or a CAPTCHA): the results may be incomplete; searching again later may find more.\n")
	}
	for i := range out.Results {
		h := &out.Results[i]
		b.WriteString("\n")
		b.WriteString(strconv.Itoa(h.Rank))
		b.WriteString(". ")
		if h.Title != "" {
			text(&h.Title)
		} else {
			b.WriteString("(no title)")
		}
		b.WriteString("\n   ")
		text(&h.URL)
		b.WriteString("\n")
		if h.Snippet != "" {
			b.WriteString("   ")
			text(&h.Snippet)
			b.WriteString("\n")
		}
	}
	if out.Count > 0 {
		b.WriteString("\nThe pages were not fetched: call fetch with a result's URL to read it.\n")
	}
	return b.String()
}
