package robots

import (
	"strings"
	"testing"
)

// FuzzParse: any bytes parse without panicking, every rule of the groups
// that apply matches a path exactly when the regular expression of its
// pattern (the oracle) does, and the verdict is the oracle's: the longest
// matching pattern, an allow winning a tie, allowed when none matches.
func FuzzParse(f *testing.F) {
	// Seeds: a plain file; wildcards and an anchor; several groups with
	// our token; CR line ends and a BOM; percent-encoding; garbage.
	f.Add([]byte("User-agent: *\nDisallow: /private\nAllow: /private/public\n"), "/private/x")
	f.Add([]byte("User-agent: *\nDisallow: /*.php$\nAllow: /$\n"), "/index.php")
	f.Add([]byte("User-agent: ocfetch\nDisallow: /a\n\nUser-agent: *\nDisallow: /\nUser-agent: OCFETCH/2\nAllow: /a/b\n"), "/a/b?c")
	f.Add([]byte("\xef\xbb\xbfuser-agent: *\rdisallow: /a*b*c\r\n"), "/aXbYc")
	f.Add([]byte("User-agent: *\nDisallow: /%7euser/%E4\n"), "/~user/%e4")
	f.Add([]byte("<html><body>Not found</body></html>"), "/")
	f.Add([]byte("User-agent: *\nDisallow: ****$$$\n"), "/$$")
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		r := Parse(data)
		if strings.ContainsAny(path, "#") {
			return // a URL's path and query never hold a fragment
		}
		v := r.Check("ocfetch", path)
		p := path
		if p == "" {
			p = "/"
		}
		p = normalize(p)
		groups := r.matching("ocfetch")
		if len(groups) == 0 {
			groups = r.matching("*")
		}
		var best *Rule // the oracle's choice
		for _, g := range groups {
			for i, o := range g.rules {
				m := oracle(o.Pattern).MatchString(p)
				if o.match(p) != m {
					t.Fatalf("pattern %q on %q: match %v; the oracle says %v", o.Pattern, p, !m, m)
				}
				if m && (best == nil || len(o.Pattern) > len(best.Pattern) || len(o.Pattern) == len(best.Pattern) && o.Allow) {
					best = &g.rules[i]
				}
			}
		}
		switch {
		case p == "/robots.txt" || best == nil:
			if !v.Allowed || v.Rule != nil {
				t.Fatalf("Check(%q) = %+v; want allowed by no rule", p, v)
			}
		case v.Rule == nil || v.Allowed != best.Allow || v.Rule.Allow != best.Allow || len(v.Rule.Pattern) != len(best.Pattern):
			t.Fatalf("Check(%q) = %+v; the oracle's rule is %v", p, v, best)
		}
	})
}
