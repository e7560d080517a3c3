// Package pdftest builds PDFs for tests: small valid files with known
// text, and the hostile ones the extractor must survive (a content stream
// that inflates to hundreds of megabytes from under a megabyte).
package pdftest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// Minimal builds a valid one-font PDF whose pages show the given lines
// (one page per element of pages), with a correct cross-reference table.
func Minimal(pages ...[]string) []byte { return Assemble(Objects(pages...)) }

// Objects returns the objects of Minimal, numbered from 1:
// catalog, page tree, font, then a page and its content stream per page.
func Objects(pages ...[]string) []string {
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}
	for i, lines := range pages {
		var cs strings.Builder
		cs.WriteString("BT /F1 12 Tf 72 720 Td 14 TL\n")
		for _, l := range lines {
			l = strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l)
			fmt.Fprintf(&cs, "(%s) Tj T*\n", l)
		}
		cs.WriteString("ET")
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", cs.Len(), cs.String()),
		)
	}
	return objs
}

// Assemble writes objects 1..n with a correct cross-reference table.
func Assemble(objs []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// FlateBomb is a valid one-page PDF of a little under 1 MB whose content
// stream inflates to inflated bytes of text-showing operators: issue
// 14.2's test case (0.8 MB that inflates to 256 MB). The stream is made
// of one line repeated, so it compresses about 300:1.
func FlateBomb(inflated int) []byte {
	line := []byte("(Bomb text that goes on and on and on) Tj T*\n")
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	w.Write([]byte("BT /F1 12 Tf 72 720 Td 14 TL\n"))
	chunk := bytes.Repeat(line, (1<<20)/len(line))
	for n := 0; n < inflated; n += len(chunk) {
		w.Write(chunk)
	}
	w.Write([]byte("ET"))
	w.Close()
	objs := Objects([]string{"x"})
	objs[4] = fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes())
	return Assemble(objs)
}

// WithTrailerEntry returns a copy of a Minimal PDF with entry added to
// its trailer dictionary.
func WithTrailerEntry(pdf []byte, entry string) []byte {
	return bytes.Replace(pdf, []byte("/Root 1 0 R >>"), []byte("/Root 1 0 R "+entry+" >>"), 1)
}

// Startxref is the offset after the last "startxref" of pdf, or -1.
func Startxref(pdf []byte) int {
	i := bytes.LastIndex(pdf, []byte("startxref\n"))
	var off int
	if i < 0 {
		return -1
	}
	if _, err := fmt.Sscanf(string(pdf[i+len("startxref\n"):]), "%d", &off); err != nil {
		return -1
	}
	return off
}
