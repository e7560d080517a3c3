package securefile

import (
	"sync"
	"sync/atomic"
)

// maxMemo bounds the paths [Memo] remembers; past it they are forgotten
// all at once (and joined again as they are asked for).
const maxMemo = 1024

type memoKey struct{ a, b string }

// memoEntry is one remembered join; never modified once made.
type memoEntry struct {
	a, b, p string
}

var memo = struct {
	mu sync.Mutex
	m  map[memoKey]*memoEntry
	// recent are the entries last asked for, one per slot (memoSlot):
	// what a call asks for again is found with no lock and no hash.
	recent [64]atomic.Pointer[memoEntry]
}{m: make(map[memoKey]*memoEntry)}

// memoSlot is (a, b)'s slot of memo.recent (see [spread]).
func memoSlot(a, b string) int {
	return int((spread(a)*31 + spread(b)) % uint(len(memo.recent)))
}

// spread spreads the few paths and names a process asks for again over
// a handful of slots, by their length and a few of their bytes, with no
// hash of the whole string: a collision costs the caller its locked
// lookup, nothing else.
func spread(s string) uint {
	h := uint(len(s)) * 131
	if len(s) > 0 {
		h += uint(s[len(s)-1])*7 + uint(s[len(s)/2])*17 + uint(s[len(s)*3/4])*3
	}
	return h
}

// Memo returns join(), remembered under (a, b): for a path a call derives
// from the same root and name on every call (a workspace's rules.json,
// the user's rules file), which would otherwise be joined and cleaned —
// and allocated — anew each time. join must depend on a and b only; its
// result is remembered unless it is "". b names the join as well as the
// name (".oc_chat/rules.json" for a workspace's rules under its root, the
// file name alone for a file in a directory), so that two joins of the
// same strings never share a result.
func Memo(a, b string, join func() string) string {
	slot := &memo.recent[memoSlot(a, b)]
	if e := slot.Load(); e != nil && e.a == a && e.b == b {
		return e.p
	}
	k := memoKey{a, b}
	memo.mu.Lock()
	e, ok := memo.m[k]
	memo.mu.Unlock()
	if ok {
		slot.Store(e)
		return e.p
	}
	p := join()
	if p == "" {
		return p
	}
	e = &memoEntry{a: a, b: b, p: p}
	memo.mu.Lock()
	if len(memo.m) >= maxMemo {
		clear(memo.m)
	}
	memo.m[k] = e
	memo.mu.Unlock()
	slot.Store(e)
	return p
}
