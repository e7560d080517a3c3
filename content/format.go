package content

import (
	"errors"
	"fmt"
	"strings"
)

// Format is what Convert produces from a body: the tool's `format` argument.
type Format string

const (
	// Markdown is the default: HTML main content converted to Markdown,
	// keeping headings, lists, tables, code blocks and links.
	Markdown Format = "markdown"
	// Text is readable plain text: no markup, blocks on their own lines,
	// list bullets, table cells separated by " | ".
	Text Format = "text"
	// Raw is the body as received, decoded to UTF-8 (text types only).
	Raw Format = "raw"
)

// ErrUnsupportedFormat is returned (wrapped) by ParseFormat and Convert for a
// format other than Markdown, Text or Raw.
var ErrUnsupportedFormat = errors.New("unsupported format")

// formatsList names the valid values in error messages.
const formatsList = "markdown, text or raw"

// ParseFormat parses the tool's `format` argument. The empty string means
// Markdown; matching ignores case and surrounding space. Any other value is
// an error wrapping ErrUnsupportedFormat that names the valid values.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case "":
		return Markdown, nil
	case Markdown, Text, Raw:
		return f, nil
	}
	return "", fmt.Errorf("%w %q: use %s", ErrUnsupportedFormat, truncateForMessage(s), formatsList)
}

func (f Format) valid() bool { return f == Markdown || f == Text || f == Raw }

// truncateForMessage keeps an echoed argument short in an error message.
func truncateForMessage(s string) string {
	const max = 32
	if len(s) <= max {
		return s
	}
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max]) + "…"
}
