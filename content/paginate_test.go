package content

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestPaginate(t *testing.T) {
	tests := []struct {
		name        string
		text        string
		start, max  int
		want        Page
		wantPastEnd bool
	}{
		{"whole, no limit", "hello", 0, 0, Page{Content: "hello", NextStartIndex: 5, Total: 5}, false},
		{"negative limit is no limit", "hello", 0, -3, Page{Content: "hello", NextStartIndex: 5, Total: 5}, false},
		{"first window", "hello world", 0, 5, Page{Content: "hello", NextStartIndex: 5, Truncated: true, Remaining: 6, Total: 11}, false},
		{"middle window", "hello world", 5, 3, Page{Content: " wo", StartIndex: 5, NextStartIndex: 8, Truncated: true, Remaining: 3, Total: 11}, false},
		{"last window exactly", "hello world", 6, 5, Page{Content: "world", StartIndex: 6, NextStartIndex: 11, Total: 11}, false},
		{"limit past the end", "hello", 2, 100, Page{Content: "llo", StartIndex: 2, NextStartIndex: 5, Total: 5}, false},
		{"negative start is 0", "hello", -4, 2, Page{Content: "he", NextStartIndex: 2, Truncated: true, Remaining: 3, Total: 5}, false},
		{"start at the end", "hello", 5, 10, Page{StartIndex: 5, NextStartIndex: 5, Total: 5}, true},
		{"start beyond the end", "hello", 99, 10, Page{StartIndex: 99, NextStartIndex: 5, Total: 5}, true},
		{"empty document", "", 0, 10, Page{}, false},
		{"runes, not bytes", "日本語のテキスト", 2, 3, Page{Content: "語のテ", StartIndex: 2, NextStartIndex: 5, Truncated: true, Remaining: 3, Total: 8}, false},
		{"emoji are one rune each", "a😀b😀c", 1, 2, Page{Content: "😀b", StartIndex: 1, NextStartIndex: 3, Truncated: true, Remaining: 2, Total: 5}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Paginate(tc.text, tc.start, tc.max)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Paginate(%q, %d, %d) mismatch (-want +got):\n%s", tc.text, tc.start, tc.max, diff)
			}
			if got.PastEnd() != tc.wantPastEnd {
				t.Errorf("PastEnd: got %v; want %v", got.PastEnd(), tc.wantPastEnd)
			}
		})
	}
}

// TestPaginateConcatenation reads long documents page by page, the way a
// model does, and checks the pages add up to the whole, with no page
// splitting a UTF-8 sequence and every page but the last full.
func TestPaginateConcatenation(t *testing.T) {
	spec := readTestdata("golden/go_spec.full.md")(t)
	docs := map[string]string{
		"go spec markdown": string(spec),
		"mixed scripts":    strings.Repeat("Grüße, 世界! 😀 ascii text — ", 3000),
		"short":            "ab",
		"small mixed":      strings.Repeat("Grüße, 世界! 😀 — ", 50),
	}
	for name, text := range docs {
		total := utf8.RuneCountInString(text)
		// Each call is O(len(text)): keep the page count of big documents
		// modest, as a model reading them would.
		maxes := []int{1000, 5000, total, total + 1}
		if total < 2_000 {
			maxes = append(maxes, 1, 7)
		}
		for _, max := range maxes {
			var b strings.Builder
			start, pages := 0, 0
			for {
				p := Paginate(text, start, max)
				pages++
				if !utf8.ValidString(p.Content) {
					t.Fatalf("%s/max %d: page at %d is not valid UTF-8", name, max, start)
				}
				if p.Total != total {
					t.Fatalf("%s/max %d: Total: got %d; want %d", name, max, p.Total, total)
				}
				if n := utf8.RuneCountInString(p.Content); p.Truncated && n != max {
					t.Fatalf("%s/max %d: truncated page holds %d runes; want %d", name, max, n, max)
				}
				if p.Remaining != total-p.NextStartIndex {
					t.Fatalf("%s/max %d: Remaining %d; want %d", name, max, p.Remaining, total-p.NextStartIndex)
				}
				b.WriteString(p.Content)
				if !p.Truncated {
					break
				}
				start = p.NextStartIndex
				if pages > total+1 {
					t.Fatalf("%s/max %d: no progress", name, max)
				}
			}
			if b.String() != text {
				t.Errorf("%s/max %d: concatenated pages differ from the document (%d of %d bytes)", name, max, b.Len(), len(text))
			}
			if want := (total + max - 1) / max; total > 0 && pages != want {
				t.Errorf("%s/max %d: got %d pages; want %d", name, max, pages, want)
			}
		}
	}
}

// FuzzPaginate checks the invariants on any text (including invalid UTF-8,
// which counts one rune per bad byte, like utf8.RuneCountInString) and any
// window.
func FuzzPaginate(f *testing.F) {
	// Seeds: ASCII, multi-byte, 4-byte emoji, invalid UTF-8, empty, and
	// windows that start beyond the end or have no limit.
	f.Add("hello world", 3, 4)
	f.Add("日本語のテキスト", 1, 2)
	f.Add("a😀b😀c", 0, 1)
	f.Add("bad\xff\xfebytes", 2, 3)
	f.Add("", 0, 0)
	f.Add("short", 10, 1)
	f.Add("no limit", 0, -1)
	f.Add("abcdefghijklmnopq日本語abcdefghij\xffxyz", 3, 17)                                           // the 8-byte ASCII skip, then multi-byte
	f.Add("abcdefghijklmnop", 0, 16)                                                                // exactly the rest of the text
	f.Add("0123456789abcdef01234567\xe6\x97\xa5\xff89abcdef0123456789abcdef", 0, 0)                 // two ASCII words, one, then a mixed word
	f.Add(strings.Repeat("a", 41)+"é"+strings.Repeat("b", 70)+"\xff"+strings.Repeat("c", 33), 0, 0) // the 32-byte skip, broken by a rune and a bad byte
	f.Fuzz(func(t *testing.T, text string, start, max int) {
		p := Paginate(text, start, max)
		total := utf8.RuneCountInString(text)
		if p.Total != total {
			t.Fatalf("Total: got %d; want %d", p.Total, total)
		}
		if p.NextStartIndex+p.Remaining != total || p.Remaining < 0 {
			t.Fatalf("NextStartIndex %d + Remaining %d != Total %d", p.NextStartIndex, p.Remaining, total)
		}
		if p.Truncated != (p.Remaining > 0) {
			t.Fatalf("Truncated %v with Remaining %d", p.Truncated, p.Remaining)
		}
		if max > 0 && utf8.RuneCountInString(p.Content) > max {
			t.Fatalf("page longer than max")
		}
		if !strings.Contains(text, p.Content) {
			t.Fatalf("page is not a substring of the text")
		}
		if utf8.ValidString(text) && !utf8.ValidString(p.Content) {
			t.Fatalf("page split a UTF-8 sequence")
		}
		if p.Truncated {
			rest := Paginate(text, p.NextStartIndex, 0)
			if p.Content+rest.Content != text[len(text)-len(p.Content)-len(rest.Content):] {
				t.Fatalf("page and rest do not join")
			}
		}
	})
}
