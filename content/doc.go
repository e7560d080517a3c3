// Package content turns a response body into what a model reads, and
// pages through the result.
//
// [Convert] decodes the body to UTF-8 and converts it by media type:
// HTML to Markdown (the default) or plain text, with main-content
// extraction (a readability port) falling back to the whole page; JSON
// pretty-printed; text and Markdown passed through; PDF to its text;
// images and other binary bodies described by type and size, never
// dumped. [Paginate] then cuts the converted text into windows of
// max_length runes from start_index, the way the MCP fetch server does, so
// a model can read a long page in turns. Convert once per fetch and
// paginate the Document's Text as often as needed.
//
// Wiring, in a fetch tool:
//
//	format, err := content.ParseFormat(args.Format) // "" → content.Markdown
//	if err != nil { /* invalid_arguments */ }
//	doc, err := content.Convert(ctx, body, resp.Header.Get("Content-Type"),
//		content.Options{Format: format, BaseURL: resp.Request.URL})
//	if err != nil { return err } // ctx done
//	page := content.Paginate(doc.Text, args.StartIndex, args.MaxLength)
//	switch {
//	case page.PastEnd():
//		// tell the model there is no more content (page.Total runes in all)
//	case page.Truncated:
//		// append: "call again with start_index = page.NextStartIndex"
//	}
//
// # Charset
//
// The encoding comes from a byte order mark, else the Content-Type
// charset, else (HTML only) a <meta> charset in the first 1024 bytes (one
// naming UTF-16 read as UTF-8, as browsers do), else
// UTF-8 when the bytes are valid UTF-8, else windows-1252 with a note.
// Invalid input never fails a conversion: bad bytes become U+FFFD and
// Document.Notes says how many.
//
// # HTML
//
// The page is parsed once by content/internal/htmlparse, x/net/html's
// tree construction copied with a work budget (see "Bounds"); the tree is
// x/net/html's own. One walk then
// removes what is never content (script, style, noscript, template, title,
// iframe, svg, canvas, form controls, comments, hidden elements) and makes
// links and image sources absolute against Options.BaseURL (or the page's
// <base href>); links to "#fragment" stay as they are, and data: images and
// javascript:, vbscript: and data: links are dropped (the scheme read as a
// browser reads it, tabs and line breaks removed: "java\tscript:"). Extraction (codeberg.org/readeck/
// go-readability/v2, a maintained port of Mozilla's Readability) works on
// that tree in place, and the Markdown or plain-text writer reads the
// extracted node directly: no render and re-parse. Code blocks keep their
// language through extraction (named as a "language-x" class readability
// is told to keep), and images with an empty alt inside a <figure> are
// kept as ![](url). When extraction finds too little (under 250
// characters, under a quarter of the page's text, one of the page's tables
// and nothing else, or one section of a chapter: under half the text and a
// fifth of ten or more headings), the page is parsed again and converted
// whole (docs/EXTRACTION.md). A page with scripts and almost no text gets
// the note "this page may need JavaScript". Pages of more than 50,000
// elements or nested deeper than 100 skip extraction (its cost grows with
// depth times text), with a note.
//
// Markdown and text are written by this package in one pass over the
// tree, by one walk that reads headings, lists (their numbers: an
// <ol start> Markdown can write for every item, else from 1, in both
// formats) and tables (rows, at most 64 columns) the same way for both
// and differs only in how it writes them (see render): Markdown has
// tables as GFM tables (cells never run together), every
// <pre> as a fenced block whether or not it holds a <code>, lists,
// headings, emphasis, links and images. html-to-markdown v2 with its table
// plugin, the maintained converter, produces the same structure but its
// own passes cost more than the whole time budget (about 18 ms of a
// 14 ms budget on the Go spec); the tests keep it as the reference the
// writer must agree with on headings, code blocks, table rows and links.
//
// x/net/html refuses documents nested deeper than 512 elements; such a
// page is flattened below depth 256 (its text kept) and parsed again, with
// a note, so pathological input still converts in bounded time.
//
// # Bounds
//
// A body of at most 5 MiB from a hostile server must not become gigabytes
// of tree or output, nor keep Convert busy after ctx is done:
//   - building the tree is charged one unit per token, node and attribute
//     (clones of formatting elements included: the "Noah's Ark"
//     reconstruction made 8 million nodes of 68 KB in x/net/html) and one
//     per 8 open elements the parser's scope checks scan (under 500
//     nested elements each "</p>" or "<li>" scanned 500); past
//     min(2 Mi, 256 Ki + len(body)) units the page is refused with
//     content_too_complex, whose hint says that format raw returns the
//     body; the parser checks ctx every 4096 units;
//   - the Markdown and text writers stop at outputBudget(len(body)) =
//     min(16 MiB, 64 KiB + 8 × len(body)) bytes (cut on a rune boundary),
//     with the note "content cut at N bytes of output";
//   - JSON is pretty-printed only when it is nested at most 64 deep and
//     its indented form fits that budget; otherwise it is shown as
//     received, with a note;
//   - a table keeps at most 64 columns (colspan counted; a note when real
//     cells are dropped) and pads short rows only up to 65,536 cells;
//   - line prefixes of nested lists, quotes and definitions stop growing at
//     64 bytes (with a note), so deep nesting is not repeated on every line;
//   - a <base href> longer than 2048 bytes is ignored, and a link or image
//     source stays as written (with a note counting them) when its absolute
//     form would be longer than 2048 bytes or when the page's links have
//     already grown by the output budget in all;
//   - the tree walks check ctx every 1024 nodes, the JSON scan every
//     64 KiB; a done ctx makes Convert return ctx.Err() promptly.
//
// # PDF
//
// PDF text comes from content/pdf, which runs github.com/ledongthuc/pdf
// (pure Go, not hardened against hostile files) in a child process: the
// ocfetch binary re-executed as its "pdf-extract" part, with an
// address-space limit on Linux and the BSDs, a CPU limit on Unix, a Go
// memory limit everywhere,
// and a kill at the call's deadline (10 s at most). The calling process
// holds only the body and at most 16 MiB of text. A PDF that cannot be
// read safely, took too long, or passed the child's limits is described
// like a binary body, with a note. At most 1000 pages are read. A program
// that converts PDFs must call reexec.Init first thing in main (and in
// TestMain); without it Convert returns an internal_error refusal.
//
// # Formats
//
// Document.Format says what was produced, which may differ from what was
// asked: JSON, text and PDF give Text, a Markdown body gives Markdown, and
// Raw of a binary type gives a Text description with the note "binary
// content not shown" rather than an error.
package content
