package securefile

import (
	"fmt"
	"testing"
)

// TestMemo: every key gets its own join, asked for once while
// remembered, whether its slot of memo.recent is its own or shared with
// another key (more keys than slots), and "" is never remembered.
func TestMemo(t *testing.T) {
	// The memo is the process's, and forgets everything past maxMemo
	// entries: start it empty, or what earlier tests (or this test's
	// earlier runs, go test -count=N) remembered is found, or the memo
	// fills up midway and a key is joined twice.
	memo.mu.Lock()
	clear(memo.m)
	memo.mu.Unlock()
	for i := range memo.recent {
		memo.recent[i].Store(nil)
	}
	joins := map[string]int{}
	join := func(a, b string) func() string {
		return func() string {
			joins[a+"|"+b]++
			return a + "/" + b
		}
	}
	j := NewMemoJoin("test")
	var keys [][2]string
	for i := range 3 * len(memo.recent) {
		keys = append(keys, [2]string{fmt.Sprintf("/tmp/memo-test/root%d", i), fmt.Sprintf("name%d", i%5)})
	}
	for round := range 3 {
		for _, k := range keys {
			if got, want := Memo(j, k[0], k[1], join(k[0], k[1])), k[0]+"/"+k[1]; got != want {
				t.Fatalf("round %d: Memo(%q, %q) = %q; want %q", round, k[0], k[1], got, want)
			}
		}
	}
	for _, k := range keys {
		if n := joins[k[0]+"|"+k[1]]; n != 1 {
			t.Errorf("Memo(%q, %q) joined %d times; want 1", k[0], k[1], n)
		}
	}
	empty := 0
	for range 2 {
		if got := Memo(j, "/tmp/memo-test/none", "x", func() string { empty++; return "" }); got != "" {
			t.Fatalf("Memo of an empty join = %q; want \"\"", got)
		}
	}
	if empty != 2 {
		t.Errorf("an empty join was asked for %d times in 2 calls; want 2 (not remembered)", empty)
	}
}

// TestMemoJoinsApart: two joins of the same strings that answer
// differently — one refuses the name, one joins it — each get their own
// answer, in either order.
func TestMemoJoinsApart(t *testing.T) {
	strict, lenient := NewMemoJoin("strict"), NewMemoJoin("lenient")
	for i, order := range [][2]*MemoJoin{{lenient, strict}, {strict, lenient}} {
		a, b := fmt.Sprintf("/tmp/memo-test/apart%d", i), "dir/name"
		for _, j := range order {
			got := Memo(j, a, b, func() string {
				if j == strict {
					return "" // not a file name
				}
				return a + "/" + b
			})
			want := ""
			if j == lenient {
				want = a + "/" + b
			}
			if got != want {
				t.Errorf("order %d: %s join = %q; want %q", i, j.name, got, want)
			}
		}
	}
}
