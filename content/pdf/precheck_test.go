package pdf

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/content/pdf/pdftest"
	"go.uber.org/goleak"
)

// xrefEntry is one row of an xref stream: type, field 2, field 3.
type xrefEntry [3]int

// xrefStreamPDF is minimalPDF (objects 1-5) plus the objects more (6, …)
// indexed by a FlateDecode xref stream (W [1 4 2]) instead of a table. edit may change the
// entries (index = object number) and extra is added to the stream's
// dictionary; "%XREF%" in extra becomes the stream's own offset. With
// predictor, rows are PNG-Up encoded (/Predictor 12).
func xrefStreamPDF(edit func([]xrefEntry), extra string, predictor bool, more ...string) []byte {
	objs := append(pdftest.Objects([]string{"Streamed xref"}), more...)
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	entries := []xrefEntry{{0, 0, 65535}}
	for i, o := range objs {
		entries = append(entries, xrefEntry{1, b.Len(), 0})
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	entries = append(entries, xrefEntry{1, xref, 0})
	if edit != nil {
		edit(entries)
	}
	const width = 7
	var raw []byte
	prev := make([]byte, width)
	for _, e := range entries {
		row := []byte{byte(e[0]), byte(e[1] >> 24), byte(e[1] >> 16), byte(e[1] >> 8), byte(e[1]), byte(e[2] >> 8), byte(e[2])}
		if predictor {
			raw = append(raw, 2)
			for i := range row {
				raw = append(raw, row[i]-prev[i])
			}
			copy(prev, row)
			continue
		}
		raw = append(raw, row...)
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	parms := ""
	if predictor {
		parms = fmt.Sprintf(" /DecodeParms << /Predictor 12 /Columns %d >>", width)
	}
	extra = strings.ReplaceAll(extra, "%XREF%", fmt.Sprint(xref))
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root 1 0 R /Filter /FlateDecode%s /Length %d %s >>\nstream\n",
		len(objs)+1, len(entries), parms, z.Len(), extra)
	b.Write(z.Bytes())
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xref)
	return b.Bytes()
}

// chainedTablesPDF is minimalPDF followed by n extra xref sections (each
// repeating the table); prevOf(i, offsets) gives the /Prev of section i
// (0 is the original) as written, "" for none. Offsets are written as ten
// digits so they can be known before the sections are.
func chainedTablesPDF(n int, prevOf func(i int, offsets []int) string) []byte {
	base := pdftest.Minimal([]string{"Chained"})
	cut := bytes.LastIndex(base, []byte("\nxref\n")) + 1
	head, table := base[:cut], base[cut:bytes.Index(base, []byte("trailer"))]
	offsets := make([]int, n+1)
	sectionLen := len(table) + len("trailer\n<< /Size 6 /Root 1 0 R /Prev 0000000000 >>\n")
	off := len(head)
	for i := range offsets {
		offsets[i] = off
		off += sectionLen
	}
	var b bytes.Buffer
	b.Write(head)
	for i := range offsets {
		p := prevOf(i, offsets)
		entry := "/Prev " + p
		if p == "" {
			entry = "/Fooo 0000000000" // as long as a /Prev entry
		}
		b.Write(table)
		fmt.Fprintf(&b, "trailer\n<< /Size 6 /Root 1 0 R %s >>\n", entry)
	}
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", offsets[n])
	return b.Bytes()
}

// objStm is an uncompressed object stream that holds object 9 only, with
// /N n and extra in its dictionary. Listing object 3 (the font) as being
// in it (xref type 2) makes the library search it for 3: not found, it
// follows /Extends, reading /N header pairs each time.
func objStm(n, extra string) string {
	data := "9 0 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
	return fmt.Sprintf("<< /Type /ObjStm /N %s /First 4 /Length %d%s >>\nstream\n%s\nendstream", n, len(data), extra, data)
}

// fontInObjStm puts object 3 in object stream 6.
func fontInObjStm(e []xrefEntry) { e[3] = xrefEntry{2, 6, 0} }

// hostilePDFs are crafted files that make github.com/ledongthuc/pdf loop
// forever (or for hours), overflow its stack or run out of memory (the
// last two kill the process), checked against the library version in
// go.mod; pdfPrecheck must refuse each one.
func hostilePDFs() map[string][]byte {
	good := pdftest.Minimal([]string{"Hello"})
	x := bytes.LastIndex(good, []byte("\nxref\n")) + 1
	return map[string][]byte{
		// The review's reproduction: the library decodes #65 to "e".
		"/Pr#65v points at itself": pdftest.WithTrailerEntry(good, fmt.Sprintf("/Pr#65v %d", x)),
		"/Prev points at itself":   pdftest.WithTrailerEntry(good, fmt.Sprintf("/Prev %d", x)),
		// A comment between name and value; the lexer skips it.
		"/Prev%comment then itself": pdftest.WithTrailerEntry(good, fmt.Sprintf("/Prev%%c\n %d", x)),
		// NUL is PDF white space.
		"/Prev NUL itself": pdftest.WithTrailerEntry(good, fmt.Sprintf("/Prev\x00%d", x)),
		// Decoys that ended the old byte-level section scan early.
		"string (stream startxref) before /Prev": pdftest.WithTrailerEntry(good, fmt.Sprintf("/Foo (stream startxref) /Prev %d", x)),
		"startxref, %comment, offset": bytes.Replace(pdftest.WithTrailerEntry(good, fmt.Sprintf("/Prev %d", x)),
			[]byte("startxref\n"), []byte("startxref\n%c\n"), 1),
		"two sections, each the other's /Prev": chainedTablesPDF(2, func(i int, off []int) string {
			return map[int]string{0: "", 1: fmt.Sprintf("%010d", off[2]), 2: fmt.Sprintf("%010d", off[1])}[i]
		}),
		// Finite, but longer than maxXrefHops: refused by policy.
		"a /Prev chain of 100 sections": chainedTablesPDF(100, func(i int, off []int) string {
			if i == 0 {
				return ""
			}
			return fmt.Sprintf("%010d", off[i-1])
		}),
		"object stream /Extends itself": xrefStreamPDF(fontInObjStm, "", false, objStm("1", " /Extends 6 0 R")),
		"object stream /Ext#65nds":      xrefStreamPDF(fontInObjStm, "", false, objStm("1", " /Ext#65nds 6 0 R")),
		"object stream /N 10^11":        xrefStreamPDF(fontInObjStm, "", false, objStm("99999999999", "")),
		"object stream /#4E 10^11":      xrefStreamPDF(fontInObjStm, "", false, strings.Replace(objStm("99999999999", ""), "/N", "/#4E", 1)),
		"object stream /N%comment":      xrefStreamPDF(fontInObjStm, "", false, objStm("%c\n+99999999999", "")),
		"object stream /N indirect":     xrefStreamPDF(fontInObjStm, "", false, objStm("7 0 R", ""), "99999999999"),
		"xref subsection of 10^9":       bytes.Replace(good, []byte("xref\n0 6\n"), []byte("xref\n1000000000 1\n0000000000 65535 f \n0 6\n"), 1),
		"xref stream /Prev itself":      xrefStreamPDF(nil, "/Prev %XREF%", false),
		"xref stream /Pr#65v itself":    xrefStreamPDF(nil, "/Pr#65v %XREF%", true),
		// Object 3 is in object stream 3: resolve recurses forever.
		"xref stream: object stream in itself": xrefStreamPDF(func(e []xrefEntry) { e[3] = xrefEntry{2, 3, 0} }, "", false),
		"xref stream: object streams in each other": xrefStreamPDF(func(e []xrefEntry) {
			e[3], e[4] = xrefEntry{2, 4, 0}, xrefEntry{2, 3, 0}
		}, "", true),
		"xref stream /Size 10^12":         bytes.Replace(xrefStreamPDF(nil, "", false), []byte("/Size 7"), []byte("/Size 1000000000000"), 1),
		"xref stream /W [1 10^9 2]":       bytes.Replace(xrefStreamPDF(nil, "", false), []byte("/W [1 4 2]"), []byte("/W [1 1000000000 2]"), 1),
		"xref stream /Index [4e9 1]":      xrefStreamPDF(nil, "/Index [4000000000 7]", false),
		"xref stream predictor columns":   bytes.Replace(xrefStreamPDF(nil, "", true), []byte("/Columns 7"), []byte("/Columns 9000000000"), 1),
		"xref stream with unknown filter": bytes.Replace(xrefStreamPDF(nil, "", false), []byte("/FlateDecode"), []byte("/LZWDecode"), 1),
	}
}

func TestPDFPrecheckRefusesHostileStructures(t *testing.T) {
	for name, body := range hostilePDFs() {
		t.Run(name, func(t *testing.T) {
			if err := pdfPrecheck(body); !errors.Is(err, errPDFShape) {
				t.Errorf("pdfPrecheck: got %v; want errPDFShape", err)
			}
		})
	}
}

// TestPDFPrecheckAcceptsRealStructures: what real files do must still be
// read: comments, incremental updates (a finite /Prev chain), xref streams
// with and without the PNG-Up predictor, /N on ICC-like dictionaries.
func TestPDFPrecheckAcceptsRealStructures(t *testing.T) {
	good := pdftest.Minimal([]string{"Hello"})
	tests := map[string]struct {
		body []byte
		want string
	}{
		"minimal":  {good, "Hello"},
		"comments": {pdftest.WithTrailerEntry(good, "% a comment /Prev 0\n"), "Hello"},
		"incremental update": {chainedTablesPDF(3, func(i int, off []int) string {
			if i == 0 {
				return ""
			}
			return fmt.Sprintf("%010d", off[i-1])
		}), "Chained"},
		"font in an object stream":    {xrefStreamPDF(fontInObjStm, "", false, strings.Replace(objStm("1", ""), "9 0 <<", "3 0 <<", 1)), "Streamed xref"},
		"xref stream":                 {xrefStreamPDF(nil, "", false), "Streamed xref"},
		"xref stream, predictor":      {xrefStreamPDF(nil, "", true), "Streamed xref"},
		"small direct /N":             {pdftest.WithTrailerEntry(good, "/N 3"), "Hello"},
		"/Prev inside a string":       {pdftest.WithTrailerEntry(good, "/Foo (/Prev 9)"), "Hello"},
		"name with other escapes":     {pdftest.WithTrailerEntry(good, "/A#20B 1"), "Hello"},
		"filter array [/FlateDecode]": {bytes.Replace(xrefStreamPDF(nil, "", true), []byte("/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 7 >>"), []byte("/Filter [/FlateDecode] /DecodeParms [<< /Predictor 12 /Columns 7 >>]"), 1), "Streamed xref"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if err := pdfPrecheck(tt.body); err != nil {
				t.Fatalf("pdfPrecheck: got %v; want nil", err)
			}
			r, err := Extract(t.Context(), tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Text, tt.want) {
				t.Errorf("got text %q; want %q", r.Text, tt.want)
			}
		})
	}
}

// TestPDFHostileCorpus is the seed corpus run end to end: every hostile
// file (and the page-tree and /Parent cycles the bounded walk handles)
// gives its text or a named outcome, and none spends the child's limits:
// the structures known to hang the library are refused by the precheck,
// at once, rather than killed at the deadline.
func TestPDFHostileCorpus(t *testing.T) {
	saved := Timeout
	Timeout = 3 * time.Second
	t.Cleanup(func() { Timeout = saved })
	corpus := hostilePDFs()
	tree := pdftest.Objects([]string{"Looped"})
	tree[1] = "<< /Type /Pages /Kids [4 0 R 2 0 R] /Count 2 >>"
	corpus["page tree cycle"] = pdftest.Assemble(tree)
	parent := pdftest.Objects([]string{"first"})
	parent[3] = "<< /Type /Page /Parent 4 0 R /Contents 5 0 R >>"
	corpus["/Parent cycle"] = pdftest.Assemble(parent)
	for name, body := range corpus {
		t.Run(name, func(t *testing.T) {
			r, err := Extract(context.Background(), body)
			switch {
			case errors.Is(err, ErrTooSlow), errors.Is(err, ErrLimits):
				t.Errorf("got %v: the library hung or blew up; the precheck must refuse this file", err)
			case err == nil && r.Text == "" && r.Pages == 0:
				t.Errorf("got no text, no pages and no error")
			case err != nil && !errors.Is(err, ErrUnsafe) && !errors.Is(err, ErrUnreadable):
				t.Errorf("got %v; want the text, ErrUnsafe or ErrUnreadable", err)
			}
			goleak.VerifyNone(t)
		})
	}
}

// FuzzPDFPrecheck: the precheck reads hostile bytes itself, so it must
// end (its lexing is budgeted) and never panic, whatever the input.
func FuzzPDFPrecheck(f *testing.F) {
	// Seeds: every crafted hostile file, a minimal good one, and a few
	// fragments that stress the lexer (unterminated strings, bad escapes).
	for _, body := range hostilePDFs() {
		f.Add(body)
	}
	f.Add(pdftest.Minimal([]string{"seed"}))
	f.Add([]byte("%PDF-1.4\nstartxref 0 /N (unterminated"))
	f.Add([]byte("/Pr#6 /N <abc startxref\x00 9 0 obj << /Type /XRef /W [1 2 3] >> stream\r\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		err := pdfPrecheck(body)
		if err != nil && !errors.Is(err, errPDFShape) {
			t.Fatalf("pdfPrecheck: got %v; want nil or errPDFShape", err)
		}
	})
}

// TestPDFLaterFilesStillRead: the review's slot starvation. A looping file
// used to hold the extraction slot forever, so every later PDF was only
// described; each extraction is now a child of its own, killed at its
// deadline, and the hostile files are refused up front.
func TestPDFLaterFilesStillRead(t *testing.T) {
	for name, body := range hostilePDFs() {
		if _, err := Extract(t.Context(), body); err != nil && !errors.Is(err, ErrUnsafe) && !errors.Is(err, ErrUnreadable) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	r, err := Extract(t.Context(), pdftest.Minimal([]string{"read after all"}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Text, "read after all") {
		t.Errorf("got text %q; want the later PDF's text", r.Text)
	}
}

// TestPDFPrecheckWorkIsBounded: input built to make the precheck's own
// lexing quadratic (every /N followed by a string running to the end of
// the file) is refused once pdfLexBudget is spent.
func TestPDFPrecheckWorkIsBounded(t *testing.T) {
	body := []byte("%PDF-1.4\n" + strings.Repeat("/N (", 400_000))
	if err := pdfPrecheck(body); !errors.Is(err, errPDFShape) {
		t.Errorf("pdfPrecheck: got %v; want errPDFShape (lexing budget spent)", err)
	}
}
