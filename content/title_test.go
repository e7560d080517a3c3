package content

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var titleCases = []struct {
	name, src, want string
	fast            bool // scanTitle answers itself
}{
	{"plain", "<html><head><title>Hello</title></head><body>x</body></html>", "Hello", true},
	{"doctype meta link", `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><link rel=stylesheet href='/a.css'><title> A  &amp; B </title>`, "A & B", true},
	{"comment hides a title", "<!-- <title>no</title> --><title>yes</title>", "yes", true},
	{"script hides a title", "<script>var t = '<title>no</title>';</script><title>yes</title>", "yes", true},
	{"style before", "<style>p{}</style><TITLE>Upper</TITLE>", "Upper", true},
	{"body first", "<html><body><title>late</title>", "", true},
	{"no tags", "just text", "", true},
	{"empty title", "<title></title>", "", true},
	{"newlines", "<title>\r\n a\r\n b </title>", "a b", true},
	{"NUL is U+FFFD, as the tokenizer reads RCDATA", "<title>a\x00b&#0;c</title>", "a\uFFFDb\uFFFDc", true},
	{"attribute with >", `<meta content="a>b"><title>t</title>`, "t", true},
	{"title end with attrs", "<title>t</title foo>", "t", true},
	{"textarea falls back", "<textarea><title>no</title></textarea><title>yes</title>", "yes", false},
	{"self-closing title falls back", "<title/>x</title><title>y</title>", "y", false},
	{"script with comment falls back", "<script><!-- </script> --></script><title>t</title>", "t", false},
	{"unterminated title falls back", "<title>open", "open", false},
	{"odd tag name falls back", "<my:tag><title>t</title>", "t", false},
}

// TestRawTitle: the fast path and the tokenizer give the same title, and
// the fast path answers the plain heads itself.
func TestRawTitle(t *testing.T) {
	for _, tc := range titleCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := rawTitle([]byte(tc.src)); got != tc.want {
				t.Errorf("rawTitle = %q; want %q", got, tc.want)
			}
			if got := tokenTitle([]byte(tc.src)); got != tc.want {
				t.Errorf("tokenTitle = %q; want %q", got, tc.want)
			}
			if _, ok := scanTitle([]byte(tc.src)); ok != tc.fast {
				t.Errorf("scanTitle ok = %t; want %t", ok, tc.fast)
			}
		})
	}
}

// TestScanTitleTestdata: on the real pages of testdata the fast path
// answers, and as the tokenizer does.
func TestScanTitleTestdata(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.html")
	if len(files) == 0 {
		t.Fatal("no testdata pages")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := scanTitle(src)
		if want := tokenTitle(src); ok && got != want {
			t.Errorf("%s: scanTitle = %q; tokenizer says %q", f, got, want)
		}
	}
}

// FuzzScanTitle holds the fast path to the tokenizer: wherever scanTitle
// answers, it answers what x/net/html's tokenizer finds.
func FuzzScanTitle(f *testing.F) {
	for _, tc := range titleCases {
		f.Add(tc.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		got, ok := scanTitle([]byte(src))
		if want := tokenTitle([]byte(src)); ok && got != want {
			t.Errorf("scanTitle(%q) = %q; tokenizer says %q", src, got, want)
		}
	})
}

// FuzzCollapseSpace holds collapseSpace's no-copy path to the rule it
// skips: where isCollapsed says s is collapsed, Fields joined by one space
// gives s back.
func FuzzCollapseSpace(f *testing.F) {
	for _, seed := range []string{"", "Ten KB", " Ten KB", "Ten  KB", "Ten KB ", "Ten\tKB", "Ten\u00a0KB", "Ten\u0085KB", "a", " "} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.Join(strings.Fields(s), " ")
		if got := collapseSpace(s); got != want {
			t.Fatalf("collapseSpace(%q) = %q; want %q", s, got, want)
		}
		if isCollapsed(s) && s != want {
			t.Fatalf("isCollapsed(%q) but Fields gives %q", s, want)
		}
	})
}
