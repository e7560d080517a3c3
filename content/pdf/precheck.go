package pdf

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"strconv"
)

// The PDF precheck: a small, bounded reading of the structures that make
// github.com/ledongthuc/pdf loop forever, recurse without end or allocate
// without bound, done before the library sees the file. It reads the
// bytes with a lexer that mirrors the library's (lex.go): PDF white space
// including NUL, comments from % to the end of the line, names with #xx
// escapes decoded, literal strings with nesting and escapes, hex strings.
// Matching raw bytes is not enough: the library reads /Pr#65v as /Prev.
//
// What it refuses (errPDFShape):
//   - a cross-reference chain (from every "startxref", following /Prev
//     through xref tables and xref streams) that revisits an offset, is
//     longer than maxXrefHops, or needs more than maxXrefSections
//     sections in all (readPrevXrefs would loop);
//   - any name /Extends (after #xx decoding), wherever it appears: the
//     library follows an object stream's /Extends without a visited set;
//   - a name /N followed by an integer above maxObjStmN or by an indirect
//     reference (an object stream header is read /N times, and an indirect
//     /N may hide in compressed data);
//   - an xref stream entry that puts an object in an object stream which
//     is itself listed as compressed (resolve recurses until the stack
//     overflows, which kills the process: no recover, no watchdog);
//   - xref sizes, subsection ranges, /W widths or predictor /Columns that
//     make the library allocate more than maxPDFObjects entries or absurd
//     buffers;
//   - a file whose checks need more than pdfLexBudget bytes of lexing, or
//     xref streams that inflate past maxXrefStreamBytes.
//
// Everything is over-approximated: names are decoded wherever a "/"
// appears (in strings and stream data too) and every startxref is
// followed, not just the last one the library uses, so the cost of a false
// match is a PDF described instead of read, never a hang.
var errPDFShape = ErrUnsafe

const (
	maxXrefHops        = 64
	maxXrefSections    = 256
	maxObjStmN         = 10_000
	maxPDFObjects      = 1 << 20
	maxXrefWidth       = 16
	maxPredictorCols   = 1 << 16
	maxXrefStreamBytes = 32 << 20
	maxPDFObjectDepth  = 64
)

// pdfLexBudget is how many bytes the precheck may lex for a body of n
// bytes: every section is read once, so a real file needs about n.
func pdfLexBudget(n int) int { return 4*n + 1<<20 }

var errPDFMalformed = errors.New("malformed") // the library would fail here too: no loop

func pdfPrecheck(body []byte) error {
	c := pdfChecker{body: body, budget: pdfLexBudget(len(body)), state: map[int64]uint8{}}
	if err := c.names(); err != nil {
		return err
	}
	for i := 0; ; {
		j := bytes.Index(body[i:], []byte("startxref"))
		if j < 0 {
			break
		}
		i += j + len("startxref")
		l := c.lexer(i)
		t := l.next()
		if l.err == errPDFShape {
			return l.err
		}
		if t.kind == ptInt {
			if err := c.chain(t.n); err != nil {
				return err
			}
		}
	}
	for s := range c.containers {
		if c.compressed[s] {
			return errPDFShape
		}
	}
	return nil
}

type pdfChecker struct {
	body   []byte
	budget int // bytes left to lex; past it the file is refused
	// state of each xref section offset: 1 being followed, 2 done.
	state    map[int64]uint8
	sections int
	inflated int
	// From xref streams: objects listed as compressed (type 2), and the
	// object streams that hold them.
	compressed map[int64]bool
	containers map[int64]bool
}

// names refuses /Extends anywhere and an /N that is huge or indirect.
func (c *pdfChecker) names() error {
	b := c.body
	for i := 0; i < len(b); i++ {
		if b[i] != '/' {
			continue
		}
		l := c.lexer(i)
		t := l.next()
		if l.err == errPDFShape {
			return l.err
		}
		if t.kind != ptName {
			continue
		}
		switch t.s {
		case "Extends":
			return errPDFShape
		case "N":
			v := l.next()
			if v.kind == ptInt {
				if v.n > maxObjStmN {
					return errPDFShape
				}
				if g := l.next(); g.kind == ptInt && l.next().isKeyword("R") {
					return errPDFShape
				}
			}
			if l.err == errPDFShape {
				return l.err
			}
		}
	}
	return nil
}

// chain follows the /Prev chain from the xref section at off.
func (c *pdfChecker) chain(off int64) error {
	var path []int64
	defer func() {
		for _, p := range path {
			c.state[p] = 2
		}
	}()
	for hops := 0; ; hops++ {
		if off < 0 || off >= int64(len(c.body)) {
			return nil // the library fails to read it
		}
		switch c.state[off] {
		case 1:
			return errPDFShape // a cycle
		case 2:
			return nil // already followed to its end
		}
		if hops >= maxXrefHops {
			return errPDFShape
		}
		if c.sections++; c.sections > maxXrefSections {
			return errPDFShape
		}
		c.state[off] = 1
		path = append(path, off)
		prev, err := c.section(off)
		switch {
		case errors.Is(err, errPDFMalformed):
			return nil
		case err != nil:
			return err
		case prev == nil:
			return nil
		}
		off = *prev
	}
}

// section reads the xref table or xref stream at off and returns its
// /Prev when that is an integer (anything else stops the library's walk).
func (c *pdfChecker) section(off int64) (*int64, error) {
	l := c.lexer(int(off))
	t := l.next()
	var dict map[string]pval
	switch {
	case t.isKeyword("xref"):
		for {
			t = l.next()
			if t.isKeyword("trailer") {
				break
			}
			n := l.next()
			if t.kind != ptInt || n.kind != ptInt {
				return nil, l.failed()
			}
			if t.n < 0 || n.n < 0 || t.n+n.n > maxPDFObjects {
				return nil, errPDFShape
			}
			for range n.n {
				a, b, k := l.next(), l.next(), l.next()
				if a.kind != ptInt || b.kind != ptInt || !(k.isKeyword("n") || k.isKeyword("f")) {
					return nil, l.failed()
				}
			}
		}
		v := l.object(0)
		if v.kind != pvDict {
			return nil, l.failed()
		}
		dict = v.dict
	case t.kind == ptInt:
		l.pos = int(off)
		v := l.object(0)
		if l.err != nil {
			return nil, l.err
		}
		if v.kind != pvDef || v.def == nil || v.def.kind != pvStream {
			return nil, errPDFMalformed
		}
		dict = v.def.dict
		if err := c.xrefStream(dict, v.def.streamAt); err != nil {
			return nil, err
		}
	default:
		return nil, l.failed()
	}
	if l.err == errPDFShape {
		return nil, l.err
	}
	if p, ok := dict["Prev"]; ok && p.kind == pvInt {
		return &p.n, nil
	}
	return nil, nil
}

// xrefStream checks an xref stream's sizes and, decoding its entries the
// way the library does, records which objects it lists as compressed and
// in which object streams.
func (c *pdfChecker) xrefStream(dict map[string]pval, at int) error {
	if t := dict["Type"]; t.kind != pvName || t.s != "XRef" {
		return errPDFMalformed
	}
	size := dict["Size"]
	if size.kind != pvInt {
		return errPDFMalformed
	}
	if size.n < 0 || size.n > maxPDFObjects {
		return errPDFShape
	}
	var w []int64
	for _, x := range dict["W"].arr {
		if x.kind != pvInt || x.n < 0 || x.n > maxXrefWidth {
			return errPDFShape
		}
		w = append(w, x.n)
	}
	if len(w) < 3 {
		return errPDFMalformed
	}
	width := int(w[0] + w[1] + w[2])
	index := []int64{0, size.n}
	if ix, ok := dict["Index"]; ok && ix.kind == pvArray {
		index = index[:0]
		for _, x := range ix.arr {
			if x.kind != pvInt {
				return errPDFMalformed
			}
			index = append(index, x.n)
		}
	}
	for i := 0; i+1 < len(index); i += 2 {
		if index[i] < 0 || index[i+1] < 0 || index[i]+index[i+1] > maxPDFObjects {
			return errPDFShape
		}
	}
	// The data, as the library reads it: /Length bytes (an indirect
	// /Length reads as 0 while the xref is loaded), then the filter.
	length := dict["Length"]
	if length.kind != pvInt || length.n <= 0 || at > len(c.body) {
		return nil
	}
	raw := c.body[at:min(int64(len(c.body)), int64(at)+length.n)]
	var rd io.Reader = bytes.NewReader(raw)
	f, parms := dict["Filter"], dict["DecodeParms"]
	if f.kind == pvArray && len(f.arr) == 1 {
		// [/FlateDecode] with [<< … >>]: the library applies them pairwise.
		f = f.arr[0]
		if parms.kind == pvArray && len(parms.arr) > 0 {
			parms = parms.arr[0]
		} else {
			parms = pval{}
		}
	}
	switch {
	case f.kind == pvNone || f.kind == pvNull:
	case f.kind == pvName && f.s == "FlateDecode":
		zr, err := zlib.NewReader(rd)
		if err != nil {
			return errPDFMalformed
		}
		rd = zr
		if pred, ok := parms.dict["Predictor"]; ok && pred.kind != pvNull {
			if pred.kind != pvInt || pred.n != 12 {
				return errPDFMalformed // the library panics
			}
			cols := parms.dict["Columns"]
			if cols.n < 0 || cols.n > maxPredictorCols {
				return errPDFShape
			}
			rd = &pngUp{r: rd, row: make([]byte, 1+cols.n), hist: make([]byte, 1+cols.n)}
		}
	default:
		// Other filters (or arrays of them) never appear on real xref
		// streams; the entries cannot be checked, so refuse.
		return errPDFShape
	}
	if width == 0 {
		return nil
	}
	if c.compressed == nil {
		c.compressed, c.containers = map[int64]bool{}, map[int64]bool{}
	}
	entry := make([]byte, width)
	for i := 0; i+1 < len(index); i += 2 {
		for x := index[i]; x < index[i]+index[i+1]; x++ {
			if c.inflated += width; c.inflated > maxXrefStreamBytes {
				return errPDFShape
			}
			if _, err := io.ReadFull(rd, entry); err != nil {
				return nil // the library stops here too
			}
			typ := int64(1)
			if w[0] > 0 {
				typ = decodeBE(entry[:w[0]])
			}
			if typ == 2 {
				c.compressed[x] = true
				c.containers[decodeBE(entry[w[0]:w[0]+w[1]])] = true
			}
		}
	}
	return nil
}

func decodeBE(b []byte) int64 {
	var x uint64
	for _, c := range b {
		x = x<<8 | uint64(c)
	}
	return int64(uint32(x)) // the library keeps object numbers as uint32
}

// pngUp undoes the PNG "Up" predictor (12) the way the library does.
type pngUp struct {
	r         io.Reader
	row, hist []byte
	pend      []byte
}

func (p *pngUp) Read(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		if len(p.pend) > 0 {
			m := copy(b, p.pend)
			n, b, p.pend = n+m, b[m:], p.pend[m:]
			continue
		}
		if _, err := io.ReadFull(p.r, p.row); err != nil {
			return n, err
		}
		if p.row[0] != 2 {
			return n, errPDFMalformed
		}
		for i, c := range p.row {
			p.hist[i] += c
		}
		p.pend = p.hist[1:]
	}
	return n, nil
}

// The lexer.

type ptKind uint8

const (
	ptEOF ptKind = iota
	ptKeyword
	ptName
	ptInt
	ptOther // reals, strings, booleans
)

type ptok struct {
	kind ptKind
	s    string // keyword or decoded name
	n    int64
}

func (t ptok) isKeyword(s string) bool { return t.kind == ptKeyword && t.s == s }

type pdfLexer struct {
	c   *pdfChecker
	pos int
	err error // errPDFMalformed (the library would panic) or errPDFShape (budget)
}

func (c *pdfChecker) lexer(pos int) *pdfLexer { return &pdfLexer{c: c, pos: pos} }

// failed is the lexer's error, or errPDFMalformed.
func (l *pdfLexer) failed() error {
	if l.err != nil {
		return l.err
	}
	return errPDFMalformed
}

func (l *pdfLexer) byte() (byte, bool) {
	if l.pos >= len(l.c.body) || l.err != nil {
		return 0, false
	}
	if l.c.budget--; l.c.budget < 0 {
		l.err = errPDFShape
		return 0, false
	}
	c := l.c.body[l.pos]
	l.pos++
	return c, true
}

func pdfSpace(c byte) bool {
	switch c {
	case 0, '\t', '\n', '\f', '\r', ' ':
		return true
	}
	return false
}

func pdfDelim(c byte) bool {
	switch c {
	case '<', '>', '(', ')', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func (l *pdfLexer) fail() ptok {
	if l.err == nil {
		l.err = errPDFMalformed
	}
	return ptok{}
}

// next reads one token as the library's readToken would.
func (l *pdfLexer) next() ptok {
	c, ok := l.byte()
	for ok {
		if pdfSpace(c) {
			c, ok = l.byte()
		} else if c == '%' {
			for ok && c != '\r' && c != '\n' {
				c, ok = l.byte()
			}
		} else {
			break
		}
	}
	if !ok {
		return ptok{}
	}
	switch c {
	case '<':
		if d, ok := l.byte(); ok && d == '<' {
			return ptok{kind: ptKeyword, s: "<<"}
		}
		for { // hex string
			d, ok := l.byte()
			if !ok {
				return l.fail()
			}
			if d == '>' {
				return ptok{kind: ptOther}
			}
		}
	case '(':
		depth := 1
		for depth > 0 {
			d, ok := l.byte()
			if !ok {
				return ptok{kind: ptOther} // the library stops at EOF too
			}
			switch d {
			case '(':
				depth++
			case ')':
				depth--
			case '\\':
				l.byte()
			}
		}
		return ptok{kind: ptOther}
	case '[', ']', '{', '}':
		return ptok{kind: ptKeyword, s: string(c)}
	case '/':
		var name []byte
		for {
			d, ok := l.byte()
			if !ok {
				break
			}
			if pdfDelim(d) || pdfSpace(d) {
				l.pos--
				break
			}
			if d == '#' {
				h, _ := l.byte()
				g, _ := l.byte()
				x := unhexDigit(h)<<4 | unhexDigit(g)
				if x < 0 {
					return l.fail()
				}
				d = byte(x)
			}
			name = append(name, d)
		}
		return ptok{kind: ptName, s: string(name)}
	case '>':
		if d, ok := l.byte(); ok && d == '>' {
			return ptok{kind: ptKeyword, s: ">>"}
		}
		return l.fail()
	}
	if pdfDelim(c) {
		return l.fail()
	}
	start := l.pos - 1
	for {
		d, ok := l.byte()
		if !ok {
			break
		}
		if pdfDelim(d) || pdfSpace(d) {
			l.pos--
			break
		}
	}
	word := string(l.c.body[start:l.pos])
	if isPDFInteger(word) {
		n, err := strconv.ParseInt(word, 10, 64)
		if err != nil {
			return l.fail()
		}
		return ptok{kind: ptInt, n: n}
	}
	switch word {
	case "true", "false":
		return ptok{kind: ptOther}
	}
	if word[0] == '+' || word[0] == '-' || word[0] == '.' || ('0' <= word[0] && word[0] <= '9') {
		return ptok{kind: ptOther} // a real, or a keyword the library ignores
	}
	return ptok{kind: ptKeyword, s: word}
}

func isPDFInteger(s string) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func unhexDigit(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// pval is an object as far as the precheck needs it.
type pval struct {
	kind     pvKind
	n        int64
	s        string // a name
	dict     map[string]pval
	arr      []pval
	def      *pval // pvDef: the defined object
	streamAt int   // pvStream: where its data starts
}

type pvKind uint8

const (
	pvNone pvKind = iota // absent
	pvNull
	pvInt
	pvName
	pvDict
	pvArray
	pvStream // a dict followed by stream data
	pvRef
	pvDef // "n g obj … endobj"
	pvOther
)

// object reads one object as the library's readObject does (references,
// definitions and streams allowed).
func (l *pdfLexer) object(depth int) pval {
	if depth > maxPDFObjectDepth {
		l.fail()
		return pval{}
	}
	t := l.next()
	switch t.kind {
	case ptEOF:
		return pval{}
	case ptKeyword:
		switch t.s {
		case "null":
			return pval{kind: pvNull}
		case "<<":
			return l.dict(depth)
		case "[":
			var a []pval
			for l.err == nil {
				save := l.pos
				t := l.next()
				if t.kind == ptEOF || t.isKeyword("]") {
					break
				}
				l.pos = save
				a = append(a, l.object(depth+1))
			}
			return pval{kind: pvArray, arr: a}
		}
		return pval{kind: pvOther}
	case ptName:
		return pval{kind: pvName, s: t.s}
	case ptInt:
		save := l.pos
		if g := l.next(); g.kind == ptInt && t.n == int64(uint32(t.n)) && g.n == int64(uint16(g.n)) {
			k := l.next()
			switch {
			case k.isKeyword("R"):
				return pval{kind: pvRef, n: t.n}
			case k.isKeyword("obj"):
				obj := l.object(depth + 1)
				return pval{kind: pvDef, n: t.n, def: &obj}
			}
		}
		l.pos = save
		return pval{kind: pvInt, n: t.n}
	}
	return pval{kind: pvOther}
}

func (l *pdfLexer) dict(depth int) pval {
	d := map[string]pval{}
	for l.err == nil {
		t := l.next()
		if t.kind == ptEOF || t.isKeyword(">>") {
			break
		}
		if t.kind != ptName {
			l.fail()
			break
		}
		d[t.s] = l.object(depth + 1)
	}
	save := l.pos
	if !l.next().isKeyword("stream") {
		l.pos = save
		return pval{kind: pvDict, dict: d}
	}
	c, _ := l.byte()
	if c == '\r' {
		if c, _ = l.byte(); c != '\n' {
			l.pos--
		}
	} else if c != '\n' {
		l.fail()
	}
	return pval{kind: pvStream, dict: d, streamAt: l.pos}
}
