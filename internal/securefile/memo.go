package securefile

import (
	"sync"
	"sync/atomic"
)

// maxMemo bounds the paths [Memo] remembers; past it they are forgotten
// all at once (and joined again as they are asked for).
const maxMemo = 1024

// A MemoJoin names one way of joining that [Memo] remembers: each is
// declared once (a package variable) by the package whose join it is, and
// results are remembered per MemoJoin, so that two joins that answer
// differently for the same strings (one that refuses a name with a slash,
// one that takes it as a relative path) never share a result, whatever
// order they are asked in.
type MemoJoin struct{ name string }

// NewMemoJoin returns a new MemoJoin; name is for reading only.
func NewMemoJoin(name string) *MemoJoin { return &MemoJoin{name: name} }

type memoKey struct {
	j    *MemoJoin
	a, b string
}

// memoEntry is one remembered join; never modified once made.
type memoEntry struct {
	j       *MemoJoin
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

// Memo returns join(), remembered under (j, a, b): for a path a call
// derives from the same root and name on every call (a workspace's
// rules.json, the user's rules file), which would otherwise be joined and
// cleaned — and allocated — anew each time. join must be j's join of a
// and b, depending on them only; its result is remembered unless it is
// "".
func Memo(j *MemoJoin, a, b string, join func() string) string {
	slot := &memo.recent[memoSlot(a, b)]
	if e := slot.Load(); e != nil && e.j == j && e.a == a && e.b == b {
		return e.p
	}
	k := memoKey{j, a, b}
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
	e = &memoEntry{j: j, a: a, b: b, p: p}
	memo.mu.Lock()
	if len(memo.m) >= maxMemo {
		clear(memo.m)
	}
	memo.m[k] = e
	memo.mu.Unlock()
	slot.Store(e)
	return p
}
