package main

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"go/format"
	"io"
	"iter"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Inputs names the three input files.
type Inputs struct {
	V4, V6, Supplement string
}

// entry is one refused prefix.
type entry struct {
	Prefix    netip.Prefix
	Name      string // display name, as the refusal message shows it
	Registry  string // the registry's own name, "" for a supplement range
	Reference string // RFCs, one line
	Note      string // "terminated 2015-03", "ocfetch supplement"
}

// registryHeader is the header of both IANA special-purpose registry CSVs.
var registryHeader = []string{
	"Address Block", "Name", "RFC", "Allocation Date", "Termination Date",
	"Source", "Destination", "Forwardable", "Globally Reachable", "Reserved-by-Protocol",
}

var supplementHeader = []string{"Kind", "Address Block", "Name", "Reference"}

// footnote matches a registry footnote marker such as " [2]" at the end of
// a cell ("192.0.0.0/24 [2]", "False [1]").
var footnote = regexp.MustCompile(`\s*\[\d+\]$`)

func generateFiles(in Inputs) ([]byte, error) {
	open := func(path string) (io.Reader, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return bytes.NewReader(b), nil
	}
	v4, err := open(in.V4)
	if err != nil {
		return nil, err
	}
	v6, err := open(in.V6)
	if err != nil {
		return nil, err
	}
	supp, err := open(in.Supplement)
	if err != nil {
		return nil, err
	}
	return generate(v4, v6, supp, [3]string{filepath.Base(in.V4), filepath.Base(in.V6), filepath.Base(in.Supplement)})
}

// generate reads the registries and the supplement and returns the
// formatted source of ranges_gen.go. names are the input file names quoted
// in the header comment.
func generate(v4, v6, supp io.Reader, names [3]string) ([]byte, error) {
	e4, err := parseRegistry(v4, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", names[0], err)
	}
	e6, err := parseRegistry(v6, true)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", names[1], err)
	}
	all := append(e4, e6...)
	if all, err = applySupplement(all, supp); err != nil {
		return nil, fmt.Errorf("%s: %w", names[2], err)
	}
	slices.SortFunc(all, func(a, b entry) int {
		if c := cmp.Compare(a.Prefix.Addr().BitLen(), b.Prefix.Addr().BitLen()); c != 0 {
			return c
		}
		if c := a.Prefix.Addr().Compare(b.Prefix.Addr()); c != 0 {
			return c
		}
		return cmp.Compare(a.Prefix.Bits(), b.Prefix.Bits())
	})
	if len(all) > 255 {
		return nil, fmt.Errorf("%d ranges do not fit the uint8 index", len(all))
	}
	spans4 := flatten(all, false)
	spans6 := flatten(all, true)
	var global, other []span
	for _, s := range spans6 {
		if inGlobalUnicast(s.first) != inGlobalUnicast(s.last) {
			return nil, fmt.Errorf("span %v-%v straddles the edge of 2000::/3", s.first, s.last)
		}
		if inGlobalUnicast(s.first) {
			global = append(global, s)
		} else {
			other = append(other, s)
		}
	}
	if err := checkCoversOutsideGlobal(other); err != nil {
		return nil, err
	}
	return emit(all, spans4, global, other, names)
}

func inGlobalUnicast(a netip.Addr) bool {
	return a.As16()[0]>>5 == 1
}

// checkCoversOutsideGlobal verifies that the spans outside 2000::/3 leave no
// gap: the guard promises to refuse all of that space.
func checkCoversOutsideGlobal(other []span) error {
	want := netip.IPv6Unspecified()
	for _, s := range other {
		if s.first != want {
			return fmt.Errorf("IPv6 %v-%v outside 2000::/3 is not covered", want, s.first.Prev())
		}
		want = s.last.Next()
		if want == netip.MustParseAddr("2000::") {
			want = netip.MustParseAddr("4000::")
		}
	}
	if want.IsValid() {
		return fmt.Errorf("IPv6 from %v outside 2000::/3 is not covered", want)
	}
	return nil
}

// csvRecords yields the records of the CSV file r after its header line,
// which must be header. Lines starting with '#' are comments, and every
// record must have as many fields as header. The first error (a bad header,
// a malformed record) is yielded once, and iteration stops there.
func csvRecords(r io.Reader, header []string) iter.Seq2[[]string, error] {
	return func(yield func([]string, error) bool) {
		cr := csv.NewReader(r)
		cr.FieldsPerRecord = len(header)
		cr.Comment = '#'
		head, err := cr.Read()
		if err != nil {
			yield(nil, fmt.Errorf("reading header: %w", err))
			return
		}
		if !slices.Equal(head, header) {
			yield(nil, fmt.Errorf("header %q; want %q", head, header))
			return
		}
		for {
			rec, err := cr.Read()
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

// parseRegistry reads one IANA special-purpose registry CSV. Every row is
// refused by the guard, whatever its "Globally Reachable" column says, and
// so is a terminated row (192.88.99.0/24, 2001:10::/28): that space may
// still be routed somewhere, and no fetch needs it.
func parseRegistry(r io.Reader, v6 bool) ([]entry, error) {
	var out []entry
	for rec, err := range csvRecords(r, registryHeader) {
		if err != nil {
			return nil, err
		}
		prefixes, err := parseBlock(rec[0], v6)
		if err != nil {
			return nil, err
		}
		regName := strings.Trim(footnote.ReplaceAllString(strings.TrimSpace(rec[1]), ""), `"`)
		if regName == "" {
			return nil, fmt.Errorf("%s: empty name", rec[0])
		}
		note := ""
		if t := strings.TrimSpace(rec[4]); t != "" && t != "N/A" {
			note = "terminated " + t
		}
		for _, p := range prefixes {
			out = append(out, entry{
				Prefix:    p,
				Name:      displayName(regName),
				Registry:  regName,
				Reference: strings.Join(strings.Fields(rec[2]), " "),
				Note:      note,
			})
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no rows")
	}
	return out, nil
}

// parseBlock parses an "Address Block" cell: one or more prefixes separated
// by commas, optionally followed by a footnote marker.
func parseBlock(cell string, v6 bool) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(cell, ",") {
		f = footnote.ReplaceAllString(strings.TrimSpace(f), "")
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("address block %q: %w", cell, err)
		}
		if p != p.Masked() {
			return nil, fmt.Errorf("address block %q has host bits set", cell)
		}
		if p.Addr().Is6() != v6 {
			return nil, fmt.Errorf("address block %q is in the wrong family for this registry", cell)
		}
		out = append(out, p)
	}
	return out, nil
}

// displayName lowercases the capitalised words of a registry name ("Link
// Local" → "link local"), keeps acronyms and mixed forms ("IETF",
// "AS112-v4", "IPv4", "TEST-NET-1") as written, and turns a parenthesis
// into a comma ("Documentation (TEST-NET-1)" → "documentation, TEST-NET-1"),
// because a refusal message puts the name in parentheses.
func displayName(reg string) string {
	reg = strings.NewReplacer(" (", ", ", "(", "", ")", "").Replace(reg)
	words := strings.Fields(reg)
	for i, w := range words {
		letters := []rune(strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) {
				return r
			}
			return -1
		}, w))
		if len(letters) < 2 || !unicode.IsUpper(letters[0]) {
			continue
		}
		capitalised := true
		for _, r := range letters[1:] {
			if !unicode.IsLower(r) {
				capitalised = false
				break
			}
		}
		if capitalised {
			words[i] = strings.ToLower(w)
		}
	}
	return strings.Join(words, " ")
}

// applySupplement adds the supplement's ranges to all and applies its
// display names.
func applySupplement(all []entry, r io.Reader) ([]entry, error) {
	index := func(p netip.Prefix) int {
		return slices.IndexFunc(all, func(e entry) bool { return e.Prefix == p })
	}
	for rec, err := range csvRecords(r, supplementHeader) {
		if err != nil {
			return nil, err
		}
		p, err := netip.ParsePrefix(strings.TrimSpace(rec[1]))
		if err != nil || p != p.Masked() {
			return nil, fmt.Errorf("address block %q is not a canonical prefix", rec[1])
		}
		name := strings.TrimSpace(rec[2])
		if name == "" {
			return nil, fmt.Errorf("%s: empty name", p)
		}
		switch rec[0] {
		case "range":
			if index(p) >= 0 {
				return nil, fmt.Errorf("range %s is already in a registry", p)
			}
			all = append(all, entry{Prefix: p, Name: name, Reference: strings.Join(strings.Fields(rec[3]), " "), Note: "ocfetch supplement"})
		case "name":
			i := index(p)
			if i < 0 {
				return nil, fmt.Errorf("name for %s, which no registry lists", p)
			}
			all[i].Name = name
		default:
			return nil, fmt.Errorf("unknown kind %q", rec[0])
		}
	}
	return all, nil
}

// span is a run of addresses whose most specific refusing prefix is
// all[r].
type span struct {
	first, last netip.Addr
	r           int
}

// lastAddr returns the last address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// flatten turns the (nested) prefixes of one family into sorted, disjoint
// spans, each naming the most specific prefix containing it, with adjacent
// spans of the same prefix merged.
func flatten(all []entry, v6 bool) []span {
	var points []netip.Addr
	for _, e := range all {
		if e.Prefix.Addr().Is6() != v6 {
			continue
		}
		points = append(points, e.Prefix.Addr())
		if next := lastAddr(e.Prefix).Next(); next.IsValid() {
			points = append(points, next)
		}
	}
	slices.SortFunc(points, netip.Addr.Compare)
	points = slices.Compact(points)
	var out []span
	for i, start := range points {
		var end netip.Addr
		switch {
		case i+1 < len(points):
			end = points[i+1].Prev()
		case v6:
			end = lastAddr(netip.PrefixFrom(netip.IPv6Unspecified(), 0))
		default:
			end = lastAddr(netip.PrefixFrom(netip.IPv4Unspecified(), 0))
		}
		best := -1
		for j, e := range all {
			if e.Prefix.Contains(start) && (best < 0 || e.Prefix.Bits() > all[best].Prefix.Bits()) {
				best = j
			}
		}
		if best < 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].r == best && out[n-1].last.Next() == start {
			out[n-1].last = end
			continue
		}
		out = append(out, span{first: start, last: end, r: best})
	}
	return out
}

func emit(all []entry, v4, global, other []span, names [3]string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by rangesgen; DO NOT EDIT.\n")
	fmt.Fprintf(&b, "// Sources: testdata/%s, testdata/%s, testdata/%s.\n\n", names[0], names[1], names[2])
	b.WriteString("package netrange\n\nimport \"net/netip\"\n\n")
	b.WriteString("// rangeTable lists every refused prefix: each row of the IANA IPv4 and\n")
	b.WriteString("// IPv6 Special-Purpose Address Registries and of ocfetch's supplement.\n")
	b.WriteString("var rangeTable = [...]Range{\n")
	for i, e := range all {
		comment := e.Reference
		if e.Registry != "" && e.Registry != e.Name {
			comment = fmt.Sprintf("%q %s", e.Registry, comment)
		}
		if e.Note != "" {
			comment += "; " + e.Note
		}
		fmt.Fprintf(&b, "\t%d: {Prefix: netip.MustParsePrefix(%q), Name: %q}, // %s\n", i, e.Prefix.String(), e.Name, comment)
	}
	b.WriteString("}\n\n")

	b.WriteString("// v4Spans is the refused IPv4 space as sorted, disjoint spans, each\n")
	b.WriteString("// naming the most specific prefix of rangeTable that contains it.\n")
	b.WriteString("var v4Spans = [...]v4Span{\n")
	for _, s := range v4 {
		f, l := s.first.As4(), s.last.As4()
		fmt.Fprintf(&b, "\t{0x%08x, 0x%08x, %d}, // %v-%v %s\n",
			binary.BigEndian.Uint32(f[:]), binary.BigEndian.Uint32(l[:]), s.r, s.first, s.last, all[s.r].Prefix)
	}
	b.WriteString("}\n\n")

	for _, t := range []struct {
		name, doc string
		spans     []span
	}{
		{"v6GlobalSpans", "the refused IPv6 space inside global unicast 2000::/3", global},
		{"v6OtherSpans", "the IPv6 space outside 2000::/3, all of it refused", other},
	} {
		fmt.Fprintf(&b, "// %s is %s, as\n// sorted, disjoint spans naming the most specific prefix of rangeTable.\n", t.name, t.doc)
		fmt.Fprintf(&b, "var %s = [...]v6Span{\n", t.name)
		for _, s := range t.spans {
			f, l := s.first.As16(), s.last.As16()
			fmt.Fprintf(&b, "\t{0x%016x, 0x%016x, 0x%016x, 0x%016x, %d}, // %v-%v %s\n",
				binary.BigEndian.Uint64(f[:8]), binary.BigEndian.Uint64(f[8:]),
				binary.BigEndian.Uint64(l[:8]), binary.BigEndian.Uint64(l[8:]),
				s.r, s.first, s.last, all[s.r].Prefix)
		}
		b.WriteString("}\n\n")
	}
	return format.Source(b.Bytes())
}
