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
	var keys [][2]string
	for i := range 3 * len(memo.recent) {
		keys = append(keys, [2]string{fmt.Sprintf("/tmp/memo-test/root%d", i), fmt.Sprintf("name%d", i%5)})
	}
	for round := range 3 {
		for _, k := range keys {
			if got, want := Memo(k[0], k[1], join(k[0], k[1])), k[0]+"/"+k[1]; got != want {
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
		if got := Memo("/tmp/memo-test/none", "x", func() string { empty++; return "" }); got != "" {
			t.Fatalf("Memo of an empty join = %q; want \"\"", got)
		}
	}
	if empty != 2 {
		t.Errorf("an empty join was asked for %d times in 2 calls; want 2 (not remembered)", empty)
	}
}
