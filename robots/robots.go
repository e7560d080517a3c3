package robots

import (
	"bytes"
	"strings"
)

// MaxBytes is the most of a robots.txt that [Parse] reads: 512 KiB, as
// RFC 9309 asks crawlers to read at least 500 KiB. What follows is
// ignored, the partial last line with it.
const MaxBytes = 512 << 10

// Rules is a parsed robots.txt. The zero value (and a nil *Rules) allows
// everything. A Rules is immutable and safe for concurrent use.
type Rules struct {
	groups []group
}

// group is one group of the file: the product tokens its user-agent lines
// name ("*" for the global group) and its rules, in file order.
type group struct {
	agents []string
	rules  []Rule
}

// Rule is one allow or disallow line, as normalised for matching.
type Rule struct {
	// Allow is true for "allow", false for "disallow".
	Allow bool
	// Pattern is the path pattern, percent-encoding normalised ('*' any
	// run of characters, a final '$' the end of the path).
	Pattern string

	segs     []string // Pattern without a final '$', split at '*'
	anchored bool     // Pattern ends in '$'
}

// String is the rule as a robots.txt line ("Disallow: /private").
func (r Rule) String() string {
	if r.Allow {
		return "Allow: " + r.Pattern
	}
	return "Disallow: " + r.Pattern
}

// Verdict is the answer of [Rules.Check].
type Verdict struct {
	// Allowed says whether the path may be fetched.
	Allowed bool
	// Rule is the rule that decided, or nil when none matched (allowed:
	// the default).
	Rule *Rule
}

// Parse reads a robots.txt leniently (see the package documentation):
// nothing in it is an error, and at most [MaxBytes] of data are read.
func Parse(data []byte) *Rules {
	if len(data) > MaxBytes {
		data = data[:MaxBytes]
		// The line cut at the limit is not read: half a rule could
		// allow more than the whole one.
		if i := bytes.LastIndexAny(data, "\r\n"); i >= 0 {
			data = data[:i+1]
		} else {
			data = nil
		}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	r := &Rules{}
	cur := -1         // the index of the group rules go to; -1 before any user-agent line
	inHeader := false // the last significant line was a user-agent line
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
			line = data[:i]
			data = data[i+1:]
		} else {
			line, data = data, nil
		}
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		key := strings.ToLower(string(bytes.Trim(k, " \t")))
		val := string(bytes.Trim(v, " \t"))
		switch key {
		case "user-agent", "useragent", "user agent":
			if !inHeader {
				r.groups = append(r.groups, group{})
				cur = len(r.groups) - 1
				inHeader = true
			}
			if tok := productToken(val); tok != "" {
				r.groups[cur].agents = append(r.groups[cur].agents, tok)
			}
		case "allow", "disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw":
			inHeader = false
			if cur < 0 || val == "" {
				continue // no group yet; an empty value is no rule
			}
			r.groups[cur].rules = append(r.groups[cur].rules, newRule(key == "allow", val))
		}
	}
	return r
}

// productToken is the token a user-agent value names: "*" for the global
// group, else its leading letters, '_' and '-' in lower case ("" when it
// has none, which names no crawler).
func productToken(v string) string {
	if strings.HasPrefix(v, "*") {
		return "*"
	}
	n := 0
	for n < len(v) && isTokenByte(v[n]) {
		n++
	}
	return strings.ToLower(v[:n])
}

func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-'
}

func newRule(allow bool, val string) Rule {
	p := normalize(val)
	if p[0] != '/' && p[0] != '*' {
		p = "/" + p
	}
	// Runs of '*' are one '*'.
	for strings.Contains(p, "**") {
		p = strings.ReplaceAll(p, "**", "*")
	}
	body, anchored := strings.CutSuffix(p, "$")
	return Rule{Allow: allow, Pattern: p, segs: strings.Split(body, "*"), anchored: anchored}
}

// Check reports whether the crawler whose product token is agent
// ("ocfetch") may fetch path, the URL's path with its query
// ("/a/b?x=1"; "" is "/", and a query without a path, "?x=1", is the
// root's, "/?x=1", as it is sent).
func (r *Rules) Check(agent, path string) Verdict {
	if path == "" || path[0] == '?' {
		path = "/" + path
	}
	if r == nil {
		return Verdict{Allowed: true}
	}
	path = normalize(path)
	if path == "/robots.txt" {
		return Verdict{Allowed: true}
	}
	agent = strings.ToLower(agent)
	groups := r.matching(agent)
	if len(groups) == 0 {
		groups = r.matching("*")
	}
	var best *Rule
	for _, g := range groups {
		for i := range g.rules {
			rule := &g.rules[i]
			if best != nil && (len(rule.Pattern) < len(best.Pattern) || len(rule.Pattern) == len(best.Pattern) && (best.Allow || !rule.Allow)) {
				continue // it could not win
			}
			if rule.match(path) {
				best = rule
			}
		}
	}
	if best == nil {
		return Verdict{Allowed: true}
	}
	c := *best
	return Verdict{Allowed: c.Allow, Rule: &c}
}

// matching returns the groups that name agent.
func (r *Rules) matching(agent string) []*group {
	var out []*group
	for i := range r.groups {
		for _, a := range r.groups[i].agents {
			if a == agent {
				out = append(out, &r.groups[i])
				break
			}
		}
	}
	return out
}

// match reports whether the rule's pattern matches path from its start.
// The literal segments between '*'s are placed leftmost, one after the
// other, which is optimal for a pattern whose only operator is '*': the
// cost is one scan of path per segment at most, with no backtracking.
func (r *Rule) match(path string) bool {
	first := r.segs[0]
	if !strings.HasPrefix(path, first) {
		return false
	}
	if len(r.segs) == 1 {
		return !r.anchored || len(path) == len(first)
	}
	rest := path[len(first):]
	last := r.segs[len(r.segs)-1]
	for _, seg := range r.segs[1 : len(r.segs)-1] {
		i := strings.Index(rest, seg)
		if i < 0 {
			return false
		}
		rest = rest[i+len(seg):]
	}
	if r.anchored {
		return strings.HasSuffix(rest, last)
	}
	return strings.Contains(rest, last)
}

// normalize writes s with its percent-encoding normalised: "%xx" of an
// unreserved character (letters, digits, "-._~") decoded, every other
// "%xx" in upper case, and bytes outside printable ASCII (and '%' not
// followed by two hex digits) encoded. '*' and '$' are left as they are:
// in a pattern they keep their meaning, in a path they are literal.
func normalize(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '%' || c <= ' ' || c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			d := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(d) {
				b.WriteByte(d)
			} else {
				b.WriteByte('%')
				b.WriteByte(hex[d>>4])
				b.WriteByte(hex[d&15])
			}
			i += 2
		case c == '%' || c <= ' ' || c >= 0x7f:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
