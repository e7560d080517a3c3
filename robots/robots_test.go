package robots

import (
	"regexp"
	"strings"
	"testing"
)

// TestPatterns: the path-matching examples of Google's robots.txt
// specification and RFC 9309, each pattern as the only disallow rule.
func TestPatterns(t *testing.T) {
	tests := []struct {
		pattern string
		match   []string
		noMatch []string
	}{
		{"/", []string{"/", "/a", "/a/b?c=d"}, nil},
		{"/fish", []string{"/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.php?id=anything"},
			[]string{"/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"}},
		{"/fish*", []string{"/fish", "/fish.html", "/fishheads/yummy.html"}, []string{"/Fish.asp", "/catfish"}},
		{"/fish/", []string{"/fish/", "/fish/?id=anything", "/fish/salmon.htm"}, []string{"/fish", "/fish.html", "/animals/fish/", "/Fish/Salmon.asp"}},
		{"/*.php", []string{"/index.php", "/filename.php", "/folder/filename.php", "/folder/filename.php?parameters", "/folder/any.php.file.html", "/filename.php/"},
			[]string{"/", "/windows.PHP"}},
		{"/*.php$", []string{"/filename.php", "/folder/filename.php"}, []string{"/filename.php?parameters", "/filename.php/", "/filename.php5", "/windows.PHP"}},
		{"/fish*.php", []string{"/fish.php", "/fishheads/catfish.php?parameters"}, []string{"/Fish.PHP", "/fish.ph"}},
		{"/$", []string{"/"}, []string{"/a", "/?q"}},
		{"*/private", []string{"/a/private", "/private", "/x/y/private/z"}, []string{"/privat"}},
		{"/a*b*c", []string{"/abc", "/a-b-c", "/aXbYcZ", "/abbc"}, []string{"/acb", "/ab", "/bac"}},
		{"/a*b$", []string{"/ab", "/a/b", "/abab"}, []string{"/aba", "/a"}},
		{"/*?", []string{"/page?", "/a?b=c"}, []string{"/page"}},
		{"/a$b", []string{"/a$b", "/a$bc"}, []string{"/ab", "/a"}},              // '$' is literal but at the end
		{"private", []string{"/private", "/private/x"}, []string{"/a/private"}}, // a missing '/' is added
		{"/a**b", []string{"/ab", "/axxb"}, []string{"/a"}},                     // a run of '*' is one
		{"/%7Euser", []string{"/~user", "/%7euser/x"}, []string{"/user"}},       // unreserved characters decoded
		{"/~user", []string{"/%7Euser"}, nil},                                   // on both sides
		{"/a%2fb", []string{"/a%2Fb"}, []string{"/a/b"}},                        // reserved ones stay encoded, hex upper
		{"/ü", []string{"/%C3%BC", "/%c3%bc/x"}, []string{"/u"}},                // non-ASCII encoded
		{"/a b", []string{"/a%20b"}, nil},                                       // so is a space
		{"/100%", []string{"/100%25"}, nil},                                     // a bare '%' is "%25"
	}
	for _, tc := range tests {
		t.Run(tc.pattern, func(t *testing.T) {
			r := Parse([]byte("User-agent: *\nDisallow: " + tc.pattern + "\n"))
			for _, p := range tc.match {
				if v := r.Check("ocfetch", p); v.Allowed || v.Rule == nil {
					t.Errorf("Check(%q) = %+v; want disallowed by %q", p, v, tc.pattern)
				}
			}
			for _, p := range tc.noMatch {
				if v := r.Check("ocfetch", p); !v.Allowed {
					t.Errorf("Check(%q) = disallowed by %v; want allowed (%q does not match)", p, v.Rule, tc.pattern)
				}
			}
		})
	}
}

// TestPrecedence: the longest matching pattern wins, an allow wins a tie
// (RFC 9309 2.2.2 and Google's examples).
func TestPrecedence(t *testing.T) {
	tests := []struct {
		name, file, path string
		allowed          bool
		rule             string
	}{
		{"longer allow", "allow: /p\ndisallow: /", "/page", true, "Allow: /p"},
		{"tie goes to allow", "allow: /folder\ndisallow: /folder", "/folder/page", true, "Allow: /folder"},
		{"tie, disallow first", "disallow: /folder\nallow: /folder", "/folder/page", true, "Allow: /folder"},
		{"longer wildcard disallow", "allow: /page\ndisallow: /*.htm", "/page.htm", false, "Disallow: /*.htm"},
		{"anchored root", "allow: /$\ndisallow: /", "/", true, "Allow: /$"},
		{"anchored root, other page", "allow: /$\ndisallow: /", "/page.htm", false, "Disallow: /"},
		{"longest of three", "disallow: /a\nallow: /a/b\ndisallow: /a/b/c", "/a/b/c/d", false, "Disallow: /a/b/c"},
		{"no rule matches", "disallow: /a", "/b", true, ""},
		{"empty disallow allows", "disallow:", "/anything", true, ""},
		{"robots.txt itself", "disallow: /", "/robots.txt", true, ""},
		{"query counts", "disallow: /*?sessionid=", "/page?sessionid=1", false, "Disallow: /*?sessionid="},
		{"empty path is the root", "disallow: /$", "", false, "Disallow: /$"},
		{"a query without a path is the root's", "disallow: /?q", "?q=1", false, "Disallow: /?q"},
		{"a query without a path, root rule", "disallow: /", "?q=1", false, "Disallow: /"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := Parse([]byte("user-agent: *\n"+tc.file+"\n")).Check("ocfetch", tc.path)
			rule := ""
			if v.Rule != nil {
				rule = v.Rule.String()
			}
			if v.Allowed != tc.allowed || rule != tc.rule {
				t.Errorf("Check(%q) = allowed %v by %q; want allowed %v by %q", tc.path, v.Allowed, rule, tc.allowed, tc.rule)
			}
		})
	}
}

// TestGroups: which group a product token obeys.
func TestGroups(t *testing.T) {
	tests := []struct {
		name, file string
		agent      string
		disallowed []string
		allowed    []string
	}{
		{"own group beats the global one",
			"User-agent: *\nDisallow: /\n\nUser-agent: ocfetch\nDisallow: /private\n", "ocfetch",
			[]string{"/private"}, []string{"/", "/public"}},
		{"global group when none names us",
			"User-agent: googlebot\nDisallow: /g\n\nUser-agent: *\nDisallow: /all\n", "ocfetch",
			[]string{"/all"}, []string{"/g"}},
		{"no group for us and no global group",
			"User-agent: googlebot\nDisallow: /\n", "ocfetch",
			nil, []string{"/", "/x"}},
		{"case-insensitive, version ignored",
			"User-agent: OcFetch/1.2 (+https://x)\nDisallow: /v\n", "ocfetch",
			[]string{"/v"}, nil},
		{"a prefix of the token is another crawler",
			"User-agent: ocf\nDisallow: /\nUser-agent: ocfetchbot\nDisallow: /\n", "ocfetch",
			nil, []string{"/"}},
		{"several user-agent lines, one group",
			"User-agent: a\nUser-agent: ocfetch\nUser-agent: b\nDisallow: /shared\n", "ocfetch",
			[]string{"/shared"}, nil},
		{"blank lines and comments inside the header",
			"User-agent: a\n\n# note\nUser-agent: ocfetch\nDisallow: /shared\n", "ocfetch",
			[]string{"/shared"}, nil},
		{"groups naming us are merged",
			"User-agent: ocfetch\nDisallow: /one\n\nUser-agent: *\nDisallow: /star\n\nUser-agent: ocfetch\nDisallow: /two\n", "ocfetch",
			[]string{"/one", "/two"}, []string{"/star"}},
		{"global groups are merged",
			"User-agent: *\nDisallow: /one\nUser-agent: x\nDisallow: /x\nUser-agent: *\nDisallow: /two\n", "ocfetch",
			[]string{"/one", "/two"}, []string{"/x"}},
		{"user-agent after a rule starts a new group",
			"User-agent: ocfetch\nDisallow: /a\nUser-agent: other\nDisallow: /b\n", "ocfetch",
			[]string{"/a"}, []string{"/b"}},
		{"rules before any user-agent are ignored",
			"Disallow: /\nUser-agent: *\nDisallow: /x\n", "ocfetch",
			[]string{"/x"}, []string{"/"}},
		{"other lines do not end a group",
			"User-agent: ocfetch\nCrawl-delay: 10\nSitemap: https://example.com/s.xml\nDisallow: /a\n", "ocfetch",
			[]string{"/a"}, nil},
		{"typos Google accepts",
			"useragent: ocfetch\ndissallow: /a\nUser Agent: x\ndisalow: /b\n", "ocfetch",
			[]string{"/a"}, []string{"/b"}},
		{"CR and CRLF line ends, BOM, comments",
			"\xef\xbb\xbfUser-agent: * # all\r\nDisallow: /a # why\rDisallow: /b\r\n", "ocfetch",
			[]string{"/a", "/b"}, []string{"/c"}},
		{"keys in any case, spaces around the colon",
			"USER-AGENT :  *  \nDISALLOW\t:\t/tab\n", "ocfetch",
			[]string{"/tab"}, nil},
		{"garbage lines are ignored",
			"<html>\nnot a robots file\n: /\nUser-agent: *\nDisallow /nocolon\nDisallow: /yes\n", "ocfetch",
			[]string{"/yes"}, []string{"/nocolon"}},
		{"an agent value without a token names nobody",
			"User-agent: /x\nDisallow: /\n", "ocfetch",
			nil, []string{"/"}},
		{"the token given in any case",
			"User-agent: ocfetch\nDisallow: /a\n", "OCFETCH",
			[]string{"/a"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Parse([]byte(tc.file))
			for _, p := range tc.disallowed {
				if v := r.Check(tc.agent, p); v.Allowed {
					t.Errorf("Check(%q, %q) allowed; want disallowed", tc.agent, p)
				}
			}
			for _, p := range tc.allowed {
				if v := r.Check(tc.agent, p); !v.Allowed {
					t.Errorf("Check(%q, %q) disallowed by %v; want allowed", tc.agent, p, v.Rule)
				}
			}
		})
	}
}

// TestEmptyAndNil: no file, an empty file and a nil *Rules allow all.
func TestEmptyAndNil(t *testing.T) {
	var nilRules *Rules
	for name, r := range map[string]*Rules{"nil": nilRules, "zero": {}, "empty": Parse(nil), "blank": Parse([]byte("\n\n  \n"))} {
		if v := r.Check("ocfetch", "/x"); !v.Allowed || v.Rule != nil {
			t.Errorf("%s: Check = %+v; want allowed by no rule", name, v)
		}
	}
}

// TestMaxBytes: what follows MaxBytes is not read, and the line cut there
// is dropped whole.
func TestMaxBytes(t *testing.T) {
	head := "User-agent: *\nDisallow: /early\n"
	pad := strings.Repeat("# padding\n", (MaxBytes-len(head))/10)
	filled := head + pad
	tests := []struct {
		name       string
		file       string
		disallowed []string
		allowed    []string
	}{
		{"a rule after the limit is ignored", filled + strings.Repeat("#", MaxBytes) + "\nDisallow: /late\n", []string{"/early"}, []string{"/late"}},
		{"the line cut at the limit is dropped", filled[:MaxBytes-20] + "\nDisallow: /abcdefghijklmnopqrstuvwxyz\n", []string{"/early"}, []string{"/abcdefghij"}},
		{"a rule just inside the limit counts", filled[:MaxBytes-30] + "\nDisallow: /inside\n" + strings.Repeat("#", 40), []string{"/early", "/inside"}, nil},
		{"one endless line is nothing", strings.Repeat("x", MaxBytes+10), nil, []string{"/"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Parse([]byte(tc.file))
			for _, p := range tc.disallowed {
				if r.Check("ocfetch", p).Allowed {
					t.Errorf("%s allowed; want disallowed", p)
				}
			}
			for _, p := range tc.allowed {
				if v := r.Check("ocfetch", p); !v.Allowed {
					t.Errorf("%s disallowed by %v; want allowed", p, v.Rule)
				}
			}
		})
	}
}

// oracle is the meaning of a normalised pattern as a regular expression,
// anchored at the start: the reference the fuzz test holds match to.
func oracle(pattern string) *regexp.Regexp {
	body, anchored := strings.CutSuffix(pattern, "$")
	re := "^" + strings.ReplaceAll(regexp.QuoteMeta(body), `\*`, `.*`)
	if anchored {
		re += "$"
	}
	return regexp.MustCompile("(?s)" + re)
}

// TestMatchOracle: match agrees with the regular expression of a pattern
// on a few hand-picked hard cases (the fuzz test tries many more).
func TestMatchOracle(t *testing.T) {
	patterns := []string{"/a*a*a$", "/*a*b*", "/ab*ba", "*", "/*$", "/x*y*z$", "/aa*aa$"}
	paths := []string{"/", "/a", "/aa", "/aaa", "/aaaa", "/abba", "/ab", "/ba", "/xyz", "/xzy", "/xyyz", "/aaaaa", "/abaa"}
	for _, p := range patterns {
		rule := newRule(false, p)
		re := oracle(rule.Pattern)
		for _, s := range paths {
			if got, want := rule.match(s), re.MatchString(s); got != want {
				t.Errorf("pattern %q on %q: match %v; want %v", p, s, got, want)
			}
		}
	}
}
