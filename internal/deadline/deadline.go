package deadline

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// WithTimeout returns a copy of parent that is done d after now, or when
// parent is done, or when cancel is called — whichever comes first — as
// [context.WithTimeout] does:
//
//   - Deadline reports now+d (or parent's deadline, when it is earlier:
//     then the copy is a plain [context.WithCancel] of parent);
//   - once the deadline has passed, Err returns
//     [context.DeadlineExceeded] and [context.Cause] returns it too (also
//     for contexts derived from the copy, whose Err is
//     [context.Canceled], as for any child of a cancelled context: code
//     that names a timeout reads the cause, as net/http does);
//   - a d of zero or less gives a context already done, with that error.
//
// The deadline is kept to the precision of a runtime timer: the shared
// timer is armed for the earliest deadline, so none fires late because
// another was pending. Calling cancel as soon as the work is done releases
// the deadline (its entry leaves the heap at once); not calling it keeps
// the entry until the deadline passes.
func WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	when := time.Now().Add(d)
	if pd, ok := parent.Deadline(); ok && !pd.After(when) {
		return context.WithCancel(parent)
	}
	inner, cancelCause := context.WithCancelCause(parent)
	c := &timeoutCtx{Context: inner, when: when}
	if d <= 0 {
		cancelCause(context.DeadlineExceeded)
		return c, func() { cancelCause(context.Canceled) }
	}
	e := &entry{when: when, cancel: cancelCause}
	shared.add(e)
	return c, func() {
		shared.remove(e)
		cancelCause(context.Canceled)
	}
}

// timeoutCtx is a cancellable context that reports its deadline. It
// embeds the context of [context.WithCancelCause], so the contexts derived
// from it find that context's cancellation through Value and Done, as
// they find a context of package context's own: they are cancelled with
// it, without a goroutine of their own.
type timeoutCtx struct {
	context.Context
	when time.Time
}

func (c *timeoutCtx) Deadline() (time.Time, bool) { return c.when, true }

// Err is DeadlineExceeded once the shared timer cancelled c for its
// deadline, the embedded context's error otherwise.
func (c *timeoutCtx) Err() error {
	err := c.Context.Err()
	if err != nil && context.Cause(c.Context) == context.DeadlineExceeded {
		return context.DeadlineExceeded
	}
	return err
}

func (c *timeoutCtx) String() string { return "deadline.WithTimeout(" + c.when.String() + ")" }

// entry is one pending deadline.
type entry struct {
	when   time.Time
	cancel context.CancelCauseFunc
	index  int // in the heap; -1 once it has left it
}

// shared is the process's one set of deadlines.
var shared = &deadlines{}

// deadlines is a heap of pending deadlines and the one timer that serves
// them.
type deadlines struct {
	mu      sync.Mutex
	pending entryHeap
	timer   *time.Timer // nil until the first deadline
	armed   time.Time   // when timer will fire; zero when it is not armed
}

// add puts e in the heap, and arms the timer for it when it is the
// earliest deadline and the timer is not already due before it.
func (s *deadlines) add(e *entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	heap.Push(&s.pending, e)
	if !s.armed.IsZero() && !e.when.Before(s.armed) {
		return // the timer fires first, and re-arms for e if e is still pending
	}
	s.arm(e.when)
}

// remove takes e out of the heap, if it is still there. The timer is left
// as it is: firing early costs one look at the heap.
func (s *deadlines) remove(e *entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.index >= 0 {
		heap.Remove(&s.pending, e.index)
	}
}

// arm makes the timer fire at when. The caller holds s.mu.
func (s *deadlines) arm(when time.Time) {
	s.armed = when
	if s.timer == nil {
		s.timer = time.AfterFunc(time.Until(when), s.fire)
		return
	}
	s.timer.Reset(time.Until(when))
}

// fire cancels every deadline that is due, and arms the timer for the
// earliest one left. The cancellations run outside s.mu: a context's
// cancellation runs the AfterFunc callbacks of its children.
func (s *deadlines) fire() {
	var due []context.CancelCauseFunc
	s.mu.Lock()
	now := time.Now()
	for len(s.pending) > 0 && !s.pending[0].when.After(now) {
		e := heap.Pop(&s.pending).(*entry)
		due = append(due, e.cancel)
	}
	s.armed = time.Time{}
	if len(s.pending) > 0 {
		s.arm(s.pending[0].when)
	}
	s.mu.Unlock()
	for _, cancel := range due {
		cancel(context.DeadlineExceeded)
	}
}

// entryHeap orders entries by deadline (container/heap).
type entryHeap []*entry

func (h entryHeap) Len() int           { return len(h) }
func (h entryHeap) Less(i, j int) bool { return h[i].when.Before(h[j].when) }
func (h entryHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func (h *entryHeap) Push(x any) {
	e := x.(*entry)
	e.index = len(*h)
	*h = append(*h, e)
}

func (h *entryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.index = -1
	return e
}
