package content

import (
	"bytes"
	"html"
)

// scanTitle is rawTitle's fast path: it finds the <title> of a page the
// way the x/net/html tokenizer would, without building one (a tokenizer
// costs a reader, a buffer and a token per tag for a raw fetch that only
// wants the title). It understands the plain head of a page — text,
// comments, doctypes, start and end tags with quoted or bare attributes,
// and the raw text of <script> and <style> — and reports ok=false on
// anything else (a raw-text element it does not skip, a self-closing raw
// tag, a script holding "<!--", odd bytes in a tag name, a missing end),
// for the tokenizer to decide. FuzzScanTitle holds it to rawTitle's
// tokenizer answer wherever it reports ok.
func scanTitle(src []byte) (title string, ok bool) {
	i := 0
	for {
		j := bytes.IndexByte(src[i:], '<')
		if j < 0 {
			return "", true // no tag at all: no title
		}
		i += j + 1
		if i >= len(src) {
			return "", true
		}
		c := src[i]
		switch {
		case c == '!' && bytes.HasPrefix(src[i:], []byte("!--")):
			k := bytes.Index(src[i+3:], []byte("-->"))
			if k < 1 || bytes.Contains(src[i+3:i+3+k], []byte("--!>")) {
				return "", false
			}
			i += 3 + k + 3
		case c == '!' || c == '?':
			k := bytes.IndexByte(src[i:], '>')
			if k < 0 {
				return "", false
			}
			i += k + 1
		case c == '/':
			if i+1 >= len(src) || !isASCIILetter(src[i+1]) {
				return "", false
			}
			_, end, _, ok := scanTag(src, i+1)
			if !ok {
				return "", false
			}
			i = end
		case isASCIILetter(c):
			name, end, selfClosing, ok := scanTag(src, i)
			if !ok {
				return "", false
			}
			switch name {
			case "title":
				if selfClosing {
					return "", false
				}
				k := rawEnd(src[end:], "title")
				if k < 0 {
					return "", false
				}
				// As the tokenizer reads RCDATA: a NUL is U+FFFD, then
				// character references are decoded.
				text := src[end : end+k]
				if bytes.IndexByte(text, 0) >= 0 {
					text = bytes.ReplaceAll(text, []byte{0}, []byte("\uFFFD"))
				}
				return collapseSpace(html.UnescapeString(string(text))), true
			case "body":
				if selfClosing {
					return "", false
				}
				return "", true
			case "script", "style":
				if selfClosing {
					return "", false
				}
				k := rawEnd(src[end:], name)
				if k < 0 || bytes.Contains(src[end:end+k], []byte("<!--")) {
					return "", false
				}
				i = end + k
			case "iframe", "noembed", "noframes", "noscript", "plaintext", "textarea", "xmp":
				return "", false
			default:
				i = end
			}
		}
	}
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// scanTag reads the tag whose name starts at src[i] and returns its name
// (lowercased when scanTitle acts on it, see scannedName), the offset
// after its '>', and whether it ends in "/>". It reports ok=false for a
// name with bytes other than ASCII letters and digits, an attribute it
// does not read plainly, or a tag with no end.
func scanTag(src []byte, i int) (name string, end int, selfClosing, ok bool) {
	start := i
	for i < len(src) && (isASCIILetter(src[i]) || '0' <= src[i] && src[i] <= '9') {
		i++
	}
	if i >= len(src) {
		return "", 0, false, false
	}
	switch src[i] {
	case ' ', '\t', '\n', '\f', '/', '>':
	default:
		return "", 0, false, false
	}
	name = scannedName(src[start:i])
	for i < len(src) {
		switch c := src[i]; c {
		case '>':
			return name, i + 1, src[i-1] == '/' && i-1 > start, true
		case '"', '\'', '<', '`', 0:
			return "", 0, false, false
		case '=':
			i++
			for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\f') {
				i++
			}
			if i < len(src) && (src[i] == '"' || src[i] == '\'') {
				k := bytes.IndexByte(src[i+1:], src[i])
				if k < 0 {
					return "", 0, false, false
				}
				i += k + 2
				if i < len(src) && src[i] != ' ' && src[i] != '\t' && src[i] != '\n' && src[i] != '\f' && src[i] != '>' && src[i] != '/' {
					return "", 0, false, false
				}
				continue
			}
			if i < len(src) && src[i] == '>' {
				return "", 0, false, false
			}
		case '\r':
			return "", 0, false, false
		default:
			i++
		}
	}
	return "", 0, false, false
}

// rawEnd returns the offset in s of the end tag "</name" (any case)
// followed by whitespace, '/' or '>', which ends a raw-text or RCDATA
// element, or -1.
func rawEnd(s []byte, name string) int {
	off := 0
	for {
		k := bytes.Index(s[off:], []byte("</"))
		if k < 0 {
			return -1
		}
		p := off + k + 2
		if len(s)-p > len(name) && bytes.EqualFold(s[p:p+len(name)], []byte(name)) {
			switch s[p+len(name)] {
			case ' ', '\t', '\n', '\r', '\f', '/', '>':
				return off + k
			}
		}
		off = p
	}
}

// scannedNames are the tag names scanTitle acts on.
var scannedNames = [...]string{"title", "body", "script", "style",
	"iframe", "noembed", "noframes", "noscript", "plaintext", "textarea", "xmp"}

// scannedName returns name lowercased if it is one of scannedNames, else
// "other", for any tag scanTitle steps over: no copy of the name is made
// (a raw fetch reads the head of every page it returns).
func scannedName(name []byte) string {
	for _, n := range scannedNames {
		if len(n) == len(name) && bytes.EqualFold(name, []byte(n)) {
			return n
		}
	}
	return "other"
}
