package securefile

import "sync"

// maxMemo bounds the paths [Memo] remembers; past it they are forgotten
// all at once (and joined again as they are asked for).
const maxMemo = 1024

type memoKey struct{ a, b string }

var memo = struct {
	mu sync.Mutex
	m  map[memoKey]string
}{m: make(map[memoKey]string)}

// Memo returns join(), remembered under (a, b): for a path a call derives
// from the same root and name on every call (a workspace's rules.json,
// the user's rules file), which would otherwise be joined and cleaned —
// and allocated — anew each time. join must depend on a and b only; its
// result is remembered unless it is "". b names the join as well as the
// name (".oc_chat/rules.json" for a workspace's rules under its root, the
// file name alone for a file in a directory), so that two joins of the
// same strings never share a result.
func Memo(a, b string, join func() string) string {
	k := memoKey{a, b}
	memo.mu.Lock()
	p, ok := memo.m[k]
	memo.mu.Unlock()
	if ok {
		return p
	}
	p = join()
	if p == "" {
		return p
	}
	memo.mu.Lock()
	if len(memo.m) >= maxMemo {
		clear(memo.m)
	}
	memo.m[k] = p
	memo.mu.Unlock()
	return p
}
