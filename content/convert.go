package content

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unsafe"

	"github.com/ocfetch/ocfetch/internal/strictjson"
	"github.com/ocfetch/ocfetch/safetext"
)

// Options configure Convert. The zero value converts HTML to Markdown with
// main-content extraction and leaves relative links relative.
type Options struct {
	// Format is what to produce; "" means Markdown.
	Format Format
	// BaseURL is the final URL of the response (after redirects). Relative
	// links and image sources in HTML are made absolute against it (or
	// against the page's own <base href>, itself resolved against BaseURL).
	// If nil, relative links are left as they are.
	BaseURL *url.URL
	// FullPage turns off main-content extraction for Markdown and Text: the
	// whole page (less scripts, styles and other non-content elements) is
	// converted. By default the main content is extracted, falling back to
	// the whole page when extraction finds too little.
	FullPage bool
	// OwnBody says the caller hands body over: it never modifies body
	// after the call, so the Document's Text may share body's memory
	// instead of copying it (a raw or plain text body, valid UTF-8, is
	// then not copied at all).
	OwnBody bool
}

// Document is a converted body.
type Document struct {
	// Text is what the model reads: always valid UTF-8.
	Text string
	// Format is what Text is, which is not always what was asked for:
	// Markdown or Text converted from HTML, Text for pretty-printed JSON,
	// plain text, PDF text and descriptions of binary bodies, Markdown for
	// a Markdown body, Raw for a text body returned as received.
	Format Format
	// MediaType is the body's media type, lower case and without
	// parameters: from contentType, or sniffed when that is empty or
	// unusable.
	MediaType string
	// Title is the document title when one is known (HTML <title> or the
	// extracted article's title), else "".
	Title string
	// Notes tell the model about anything lossy or surprising in the
	// conversion, e.g. "invalid UTF-8 replaced: 3 bytes shown as U+FFFD" or
	// "binary content not shown". Nil when there is nothing to say.
	Notes []string
}

// Convert turns a response body into what a model reads.
//
// contentType is the response's Content-Type header (may be ""). The body
// is decoded to UTF-8 first (see the package documentation for the charset
// rules), then by media type:
//   - HTML: Markdown or plain text of the main content (or whole page), or
//     the decoded page itself for Raw;
//   - JSON: pretty-printed (as received for Raw);
//   - Markdown, plain text and other text types: passed through;
//   - PDF: its text (Raw gives the same description as other binaries);
//   - anything else: a one-line description (type, size), never the bytes.
//
// Asking for Raw of a binary type is not an error: the Document describes
// the body and says so in Notes. Convert returns an error only when ctx is
// done (ctx.Err()), when opts.Format is not a valid Format (wrapping
// ErrUnsupportedFormat), or when an HTML page is too complex to convert
// within the work budget: a *refusal.Error with code content_too_complex
// whose hint says that format raw returns the body (Raw never parses). Work is bounded for any body up to the fetch cap
// (5 MiB), pathological HTML included, and so is the output: at most
// outputBudget(len(body)) bytes for HTML and JSON (see the package
// documentation, "Bounds"), which Notes report when they cut anything.
//
// Safe to show: Text in every format but Raw, and Title always, hold no
// C0 control but tab and newline, no C1 control and no bidirectional
// override, embedding, isolate or mark (safetext.Text and safetext.Line
// replace each with U+FFFD, visibly). Raw keeps the body's bytes: a
// terminal renderer escapes them (safetext.TerminalWriter), a pipe gets
// them as received.
func Convert(ctx context.Context, body []byte, contentType string, opts Options) (Document, error) {
	doc, err := convert(ctx, body, contentType, opts)
	if err != nil {
		return doc, err
	}
	if doc.Format != Raw {
		// CRLF line ends are line ends, not controls to show; a lone CR
		// (which overwrites a line on a terminal) is replaced.
		if strings.Contains(doc.Text, "\r\n") {
			doc.Text = strings.ReplaceAll(doc.Text, "\r\n", "\n")
		}
		doc.Text = safetext.Text(doc.Text)
	}
	doc.Title = safetext.Line(doc.Title)
	return doc, nil
}

func convert(ctx context.Context, body []byte, contentType string, opts Options) (Document, error) {
	format := opts.Format
	if format == "" {
		format = Markdown
	}
	if !format.valid() {
		return Document{}, fmt.Errorf("%w %q: use %s", ErrUnsupportedFormat, truncateForMessage(string(format)), formatsList)
	}
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}

	mt, charset := mediaType(contentType, body)
	kind := classify(mt, body)
	doc := Document{MediaType: mt}

	switch kind {
	case kindBinary:
		doc.Text, doc.Format = describeBinary(mt, body), Text
		doc.Notes = []string{"binary content not shown"}
		return doc, nil
	case kindPDF:
		if format == Raw {
			doc.Text, doc.Format = describeBinary(mt, body), Text
			doc.Notes = []string{"binary content not shown: raw format is for text types; ask for text to read the PDF's text"}
			return doc, nil
		}
		return convertPDF(ctx, body, doc)
	}

	dec := decodeToUTF8(body, charset, kind == kindHTML)
	doc.Notes = dec.notes
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}

	if format == Raw {
		doc.Text, doc.Format = bodyText(dec.text, opts.OwnBody), Raw
		if kind == kindHTML {
			doc.Title = rawTitle(dec.text)
		}
		return doc, nil
	}

	switch kind {
	case kindHTML:
		return convertHTML(ctx, dec.text, format, opts, doc)
	case kindJSON:
		text, note, err := prettyJSON(ctx, dec.text, outputBudget(len(body)))
		if err != nil {
			return Document{}, err
		}
		doc.Text, doc.Format = text, Text
		if note != "" {
			doc.Notes = append(doc.Notes, note)
		}
	case kindMarkdown:
		doc.Text, doc.Format = bodyText(dec.text, opts.OwnBody), Markdown
	default:
		doc.Text, doc.Format = bodyText(dec.text, opts.OwnBody), Text
	}
	return doc, nil
}

// maxJSONDepth: JSON nested deeper than this is shown as received rather
// than pretty-printed (each level adds two spaces to every line below it).
const maxJSONDepth = 64

// prettyJSON indents src by two spaces per level, unless that would pass
// budget bytes or maxJSONDepth levels, or src is not valid JSON: then src
// is returned as received, with a note saying why. One pass over src's
// structure (strictjson.Structure, with ctx checked every 64 KiB)
// computes the depth and the indented size (src without its white space,
// plus a line break and indent per bracket and comma and a space per
// colon: an upper bound) before json.Indent runs, so the work is bounded
// by len(src) + budget.
func prettyJSON(ctx context.Context, src []byte, budget int) (text, note string, err error) {
	trimmed := bytes.TrimSpace(src)
	size, maxDepth, err := jsonShape(ctx, trimmed)
	if err != nil {
		return "", "", err
	}
	switch {
	case !json.Valid(trimmed):
		return string(src), "body is not valid JSON: shown as received", nil
	case maxDepth > maxJSONDepth:
		return string(src), fmt.Sprintf("JSON nested deeper than %d levels: shown as received", maxJSONDepth), nil
	case size > budget:
		return string(src), fmt.Sprintf("JSON shown as received: indented it would pass %d bytes", budget), nil
	}
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	var buf bytes.Buffer
	buf.Grow(size)
	if err := json.Indent(&buf, trimmed, "", "  "); err != nil {
		return string(src), "body is not valid JSON: shown as received", nil
	}
	return buf.String(), "", nil
}

type bodyKind int

const (
	kindText bodyKind = iota
	kindHTML
	kindJSON
	kindMarkdown
	kindPDF
	kindBinary
)

// mediaType returns the lower-case media type of contentType and its
// charset parameter ("" when absent), or the media type of the sniffed
// body (and no charset) when contentType is empty or unparseable: the
// header is parsed once, for both.
func mediaType(contentType string, body []byte) (mt, charset string) {
	if contentType != "" {
		if mt, charset, ok := parseContentType(contentType); ok {
			return mt, charset
		}
	}
	mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	return mt, ""
}

func classify(mt string, body []byte) bodyKind {
	switch mt {
	case "text/html", "application/xhtml+xml":
		return kindHTML
	case "application/json", "text/json", "application/x-ndjson":
		return kindJSON
	case "text/markdown", "text/x-markdown":
		return kindMarkdown
	case "application/pdf", "application/x-pdf":
		return kindPDF
	case "application/javascript", "application/ecmascript", "application/xml",
		"application/x-yaml", "application/yaml", "application/toml",
		"application/x-sh", "application/sql", "application/graphql",
		"application/x-www-form-urlencoded", "image/svg+xml":
		return kindText
	}
	switch {
	case strings.HasSuffix(mt, "+json"):
		return kindJSON
	case strings.HasSuffix(mt, "+xml"), strings.HasPrefix(mt, "text/"):
		return kindText
	case strings.HasPrefix(mt, "image/"), strings.HasPrefix(mt, "audio/"),
		strings.HasPrefix(mt, "video/"), strings.HasPrefix(mt, "font/"):
		return kindBinary
	}
	// A generic or unknown type (application/octet-stream, …): trust the
	// bytes. Text that sniffs as text is shown; everything else is not.
	sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(body))
	switch {
	case sniffed == "text/html":
		return kindHTML
	case sniffed == "application/pdf":
		return kindPDF
	case strings.HasPrefix(sniffed, "text/"):
		return kindText
	}
	return kindBinary
}

// bodyText returns text as a string, sharing its memory when the caller
// handed body over ([Options.OwnBody]): text is then either within body or
// a buffer the decoder made for this call, and nothing modifies either.
func bodyText(text []byte, owned bool) string {
	if !owned || len(text) == 0 {
		return string(text)
	}
	return unsafe.String(unsafe.SliceData(text), len(text))
}

// jsonShape returns the indented size bound and the depth prettyJSON
// checks, from one pass over trimmed's structure; ctx.Err() if ctx is done.
func jsonShape(ctx context.Context, trimmed []byte) (size, maxDepth int, err error) {
	size, nextCheck := len(trimmed), 0
	strictjson.Structure(trimmed, func(i, depth int) bool {
		if i >= nextCheck {
			if err = ctx.Err(); err != nil {
				return false
			}
			nextCheck = i + 64<<10
		}
		if trimmed[i] == ':' {
			size++
		} else {
			size += 1 + 2*max(depth, 0) // a member's line break and indent
		}
		maxDepth = max(maxDepth, depth)
		// In valid JSON, white space outside strings touches a bracket,
		// comma or colon: the run after this one, and the run before it
		// unless another such byte (which counted it) precedes that run.
		j := i + 1
		for j < len(trimmed) && isJSONSpace(trimmed[j]) {
			j++
		}
		k := i - 1
		for k >= 0 && isJSONSpace(trimmed[k]) {
			k--
		}
		size -= j - i - 1
		if k >= 0 && k < i-1 && !strings.ContainsRune(",:[]{}", rune(trimmed[k])) {
			size -= i - 1 - k
		}
		return true
	})
	return size, maxDepth, err
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
