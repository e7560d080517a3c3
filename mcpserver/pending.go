package mcpserver

import (
	"sync"
	"time"

	"github.com/ocfetch/ocfetch/broker"
)

// Bounds of the calls kept across the round trip of a question.
const (
	maxPendingCalls = 256
	// maxPendingBytes bounds the arguments they hold (each counted twice:
	// the arguments and the prepared call made of them).
	maxPendingBytes = 16 << 20
)

// pendingCalls keeps, on the multi round-trip protocol, the call prepared
// in the round that put a question to the user, by the nonce of the state
// that asked, so that the round carrying the answer runs that prepared call
// (one PrepareCall, one audit summary, and policy.Decide only again after
// the answer) instead of preparing it again. An entry is taken once, with
// the state's nonce consumed ([call.answered]); it is forgotten when its
// state expires or when room is needed (the oldest first). A call whose
// prepared call is gone is prepared again: nothing depends on it but cost.
type pendingCalls struct {
	now func() time.Time

	mu    sync.Mutex
	m     map[string]pendingCall
	order []string // nonces, oldest first
	bytes int
}

type pendingCall struct {
	root    string
	p       *broker.Prepared
	size    int
	expires time.Time
}

func newPendingCalls() *pendingCalls {
	return &pendingCalls{now: time.Now, m: map[string]pendingCall{}}
}

// put keeps p, prepared in the workspace root from args, under nonce.
func (pc *pendingCalls) put(nonce, root, args string, p *broker.Prepared) {
	size := 2 * len(args)
	if nonce == "" || size > maxPendingBytes {
		return
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	now := pc.now()
	for len(pc.order) > 0 {
		oldest, ok := pc.m[pc.order[0]]
		if ok && len(pc.m) < maxPendingCalls && pc.bytes+size <= maxPendingBytes && now.Before(oldest.expires) {
			break
		}
		pc.drop(pc.order[0])
		pc.order = pc.order[1:]
	}
	if len(pc.order) > 2*maxPendingCalls {
		// Taken calls leave their nonce in order until it reaches the
		// front: drop them all now and then.
		live := pc.order[:0]
		for _, n := range pc.order {
			if _, ok := pc.m[n]; ok {
				live = append(live, n)
			}
		}
		pc.order = live
	}
	pc.m[nonce] = pendingCall{root: root, p: p, size: size, expires: now.Add(stateTTL)}
	pc.order = append(pc.order, nonce)
	pc.bytes += size
}

// take returns, and forgets, the call kept under nonce for root.
func (pc *pendingCalls) take(nonce, root string) *broker.Prepared {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	e, ok := pc.m[nonce]
	if !ok {
		return nil
	}
	pc.drop(nonce) // its place in order goes when it reaches the front
	if e.root != root || !pc.now().Before(e.expires) {
		return nil
	}
	return e.p
}

func (pc *pendingCalls) drop(nonce string) {
	if e, ok := pc.m[nonce]; ok {
		pc.bytes -= e.size
		delete(pc.m, nonce)
	}
}
