package content

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	htmlcharset "golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// decoded is a body turned into UTF-8 and the notes a model should see
// about how that was done.
type decoded struct {
	text    []byte // valid UTF-8; may alias the body when it was already UTF-8
	charset string // canonical name of the encoding used
	notes   []string
}

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// decodeToUTF8 decodes body to UTF-8. The encoding is taken, in order of
// precedence (the HTML standard's), from a byte order mark, label (the
// charset parameter of the Content-Type, "" when it has none), and for
// HTML a <meta> in the first 1024 bytes (one naming UTF-16 is read as
// UTF-8, x-user-defined as windows-1252, as the standard's prescan does).
// With none of these, valid UTF-8 is taken as UTF-8; anything else is
// decoded as windows-1252 (what browsers assume) with a note saying so.
// A declared legacy charset on a body that is valid, non-ASCII UTF-8 is
// taken to be a mislabel: the body is read as UTF-8 (with a note when the
// label came from Content-Type).
//
// Bytes that are invalid in the chosen encoding are replaced with U+FFFD and
// a note counts them: the result is always valid UTF-8 and a model is never
// shown mojibake without being told.
func decodeToUTF8(body []byte, label string, isHTML bool) decoded {
	switch {
	case bytes.HasPrefix(body, bomUTF8):
		return decodeUTF8(body[len(bomUTF8):])
	case bytes.HasPrefix(body, bomUTF16LE):
		return decodeWith(body, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), "utf-16le")
	case bytes.HasPrefix(body, bomUTF16BE):
		return decodeWith(body, unicode.UTF16(unicode.BigEndian, unicode.UseBOM), "utf-16be")
	}

	var notes []string
	if label != "" {
		if enc, name := lookupCharset(label); enc != nil {
			// Servers that label every response ISO-8859-1 are common; a
			// legacy encoding almost never yields valid multi-byte UTF-8.
			if name != "utf-8" && !strings.HasPrefix(name, "utf-16") && utf8.Valid(body) && !isASCII(body) {
				return decoded{text: body, charset: "utf-8", notes: []string{
					fmt.Sprintf("Content-Type says charset %s but the body is valid UTF-8: decoded as UTF-8", name)}}
			}
			return decodeNamed(body, enc, name)
		}
		notes = append(notes, fmt.Sprintf("unknown charset %q in Content-Type ignored", truncateForMessage(label)))
	}
	if isHTML {
		if label := metaCharset(body); label != "" {
			if enc, name := lookupCharset(label); enc != nil {
				// As the HTML standard's prescan does: a <meta> read from
				// ASCII-compatible bytes cannot declare UTF-16, and
				// x-user-defined is windows-1252.
				switch {
				case strings.HasPrefix(name, "utf-16"):
					enc, name = utf8Encoding, "utf-8"
				case name == "x-user-defined":
					enc, name = charmap.Windows1252, "windows-1252"
				}
				// A page saved as UTF-8 but still declaring its old legacy
				// charset is common; a legacy encoding almost never
				// produces valid multi-byte UTF-8 by accident.
				if name == "utf-8" || !utf8.Valid(body) || isASCII(body) {
					d := decodeNamed(body, enc, name)
					d.notes = append(notes, d.notes...)
					return d
				}
			} else {
				notes = append(notes, fmt.Sprintf("unknown charset %q in <meta> ignored", truncateForMessage(label)))
			}
		}
	}

	if utf8.Valid(body) {
		return decoded{text: body, charset: "utf-8", notes: notes}
	}
	// Undeclared and not UTF-8. Mostly-valid UTF-8 with a few stray bytes is
	// UTF-8 with damage; otherwise assume the web's legacy default.
	if looksLikeDamagedUTF8(body) {
		d := decodeUTF8(body)
		d.notes = append(notes, d.notes...)
		return d
	}
	d := decodeWith(body, charmap.Windows1252, "windows-1252")
	d.notes = append(notes, append([]string{"charset not declared and the body is not UTF-8: decoded as windows-1252"}, d.notes...)...)
	return d
}

func decodeNamed(body []byte, enc encoding.Encoding, name string) decoded {
	if name == "utf-8" {
		return decodeUTF8(body)
	}
	return decodeWith(body, enc, name)
}

// decodeUTF8 validates body and replaces each run of invalid bytes with U+FFFD.
func decodeUTF8(body []byte) decoded {
	if utf8.Valid(body) {
		return decoded{text: body, charset: "utf-8"}
	}
	out := make([]byte, 0, len(body)+16)
	bad := 0
	for i := 0; i < len(body); {
		c := body[i]
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(body[i:])
		if r == utf8.RuneError && size == 1 {
			bad++
			out = utf8.AppendRune(out, utf8.RuneError)
			i++
			continue
		}
		out = append(out, body[i:i+size]...)
		i += size
	}
	return decoded{text: out, charset: "utf-8", notes: []string{
		fmt.Sprintf("invalid UTF-8 replaced: %d bytes shown as U+FFFD", bad),
	}}
}

// decodeWith decodes body with a legacy or UTF-16 encoding; x/text decoders
// replace undecodable input with U+FFFD, which is counted into a note (none
// of these encodings can carry U+FFFD itself except UTF-16, where an
// encoded U+FFFD is rare enough to be counted too).
func decodeWith(body []byte, enc encoding.Encoding, name string) decoded {
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		// x/text decoders do not fail on bad input; this is a safety net.
		return decoded{text: []byte(strings.ToValidUTF8(string(body), "\uFFFD")), charset: name,
			notes: []string{fmt.Sprintf("could not decode body as %s: shown with invalid bytes replaced", name)}}
	}
	if !utf8.Valid(out) {
		out = []byte(strings.ToValidUTF8(string(out), "\uFFFD"))
	}
	d := decoded{text: out, charset: name}
	if n := bytes.Count(out, []byte("\uFFFD")); n > 0 {
		d.notes = append(d.notes, fmt.Sprintf("%d invalid byte sequences for %s replaced with U+FFFD", n, name))
	}
	return d
}

func charsetParam(contentType string) string {
	if contentType == "" {
		return ""
	}
	_, charset, _ := parseContentType(contentType)
	return charset
}

// metaCharset finds the charset a <meta> declares in the first 1024 bytes
// (the HTML standard's prescan window): <meta charset=X> or
// <meta http-equiv=Content-Type content="...; charset=X">.
func metaCharset(body []byte) string {
	if len(body) > 1024 {
		body = body[:1024]
	}
	if !bytes.Contains(bytes.ToLower(body), []byte("<meta")) {
		return ""
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "meta" || !hasAttr {
				continue
			}
			var cs, content string
			var httpEquivCT bool
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "charset":
					cs = string(v)
				case "content":
					content = string(v)
				case "http-equiv":
					httpEquivCT = strings.EqualFold(string(v), "content-type")
				}
			}
			if cs != "" {
				return strings.TrimSpace(cs)
			}
			if httpEquivCT && content != "" {
				if c := charsetParam(content); c != "" {
					return c
				}
			}
		}
	}
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// looksLikeDamagedUTF8 reports whether invalid bytes are a small minority
// of the non-ASCII sequences: a UTF-8 document with some corruption, rather
// than a legacy single-byte one.
func looksLikeDamagedUTF8(b []byte) bool {
	valid, invalid := 0, 0
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			invalid++
		} else {
			valid++
		}
		i += size
	}
	return valid > 0 && invalid*4 <= valid
}

// utf8Encoding is htmlcharset.Lookup's answer for UTF-8, looked up once.
var utf8Encoding, _ = htmlcharset.Lookup("utf-8")

// lookupCharset is htmlcharset.Lookup, with the label almost every page
// sends, UTF-8, recognised without the lower-cased copy Lookup makes.
func lookupCharset(label string) (encoding.Encoding, string) {
	if strings.EqualFold(label, "utf-8") || strings.EqualFold(label, "utf8") {
		return utf8Encoding, "utf-8"
	}
	return htmlcharset.Lookup(label)
}
