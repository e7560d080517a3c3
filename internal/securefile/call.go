package securefile

import (
	"context"
	"sync"
)

// A Call is one call's view of the files a [Cache] holds: the files it
// reads are checked once per Call, not once per step of the call. Within
// one Call,
//
//   - a directory's identity is checked once (one lstat of its path),
//     whichever files in it are loaded — the workspace's settings.json,
//     rules.json, local_fetch.json and audit log share one check, as the
//     configuration directory's trust.json and rules.json do;
//   - a file is checked once (one fstatat under its directory's open
//     descriptor): a second [Cache.LoadIn] of the same file in the same
//     Call returns what the first returned, so that every step of a call
//     (the decision, a redirect's decision, the fetch, explain) decides on
//     the same snapshot.
//
// The next Call checks everything again, so an edit, a deletion, a
// directory replaced or turned into a symlink is seen by the next call,
// exactly as before. A Call is meant to last one call (a tool call, a
// proxied request): keep it no longer. It is safe for concurrent use by
// the goroutines of that call. A nil *Call checks on every use.
type Call struct {
	mu       sync.Mutex
	polled   bool // the change reports were drained for this call
	dirs     []callDir
	files    []callFile
	dirsBuf  [4]callDir
	filesBuf [8]callFile
}

type callDir struct {
	path string
	d    *dirHandle
	err  error
}

type callFile struct {
	cache any // the *Cache[T] the snapshot belongs to
	path  string
	s     any // its *snap[T]
}

// NewCall returns a new, empty Call.
func NewCall() *Call {
	c := &Call{}
	c.dirs, c.files = c.dirsBuf[:0], c.filesBuf[:0]
	return c
}

type callKey struct{}

// WithCall returns ctx carrying c, for the readers of the layers that
// take a context ([CallFrom]).
func WithCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallFrom returns the Call ctx carries, or nil (check on every use).
func CallFrom(ctx context.Context) *Call {
	if ctx == nil {
		return nil
	}
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// EnsureCall returns ctx and its Call, adding a new one when ctx carries
// none: what a step that may run alone (Decide) or inside a call (the
// broker's) uses.
func EnsureCall(ctx context.Context) (context.Context, *Call) {
	if c := CallFrom(ctx); c != nil {
		return ctx, c
	}
	c := NewCall()
	return WithCall(ctx, c), c
}

// sync drains the change reports once per call (every time for a nil
// Call), so that a change completed before the call started is seen by
// every [Stamp] the call trusts.
func (c *Call) sync() {
	if c == nil {
		notifier.poll()
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pollLocked()
}

// dir returns the handle of dir checked in this call (dirTable.get), the
// first check's result for every later one.
func (c *Call) dir(dir string) (*dirHandle, error) {
	if c == nil {
		notifier.poll()
		return dirs.get(dir)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pollLocked()
	for _, e := range c.dirs {
		if e.path == dir {
			return e.d, e.err
		}
	}
	d, err := dirs.get(dir)
	c.dirs = append(c.dirs, callDir{path: dir, d: d, err: err})
	return d, err
}

// pollLocked drains the change reports once per call. The caller holds
// c.mu.
func (c *Call) pollLocked() {
	if !c.polled {
		notifier.poll()
		c.polled = true
	}
}

func (c *Call) keepFile(cache any, path string, s any) {
	c.mu.Lock()
	c.files = append(c.files, callFile{cache: cache, path: path, s: s})
	c.mu.Unlock()
}

// Renew forgets what c checked, so that the next use checks every file
// and directory again: for a call that waited (an approval prompt), whose
// later steps must see what changed meanwhile.
func (c *Call) Renew() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.polled = false
	clear(c.dirs)
	clear(c.files)
	c.dirs, c.files = c.dirs[:0], c.files[:0]
	c.mu.Unlock()
}

// A Scoped is a context carrying a Call of its own, lent by [Borrow] to a
// step that runs alone (a decision outside any call) so that it does not
// allocate a Call and a context on every use.
type Scoped struct {
	context.Context
	call Call
}

// Value returns the Scoped's Call for the Call key, else the parent's.
func (s *Scoped) Value(key any) any {
	if key == (callKey{}) {
		return &s.call
	}
	return s.Context.Value(key)
}

var scopedPool = sync.Pool{New: func() any {
	s := &Scoped{}
	s.call.dirs, s.call.files = s.call.dirsBuf[:0], s.call.filesBuf[:0]
	return s
}}

// Borrow returns ctx carrying a new Call ([EnsureCall]'s, from a pool).
// The caller must [Scoped.Release] it once the step is done, and use
// neither the context nor its Call after that.
func Borrow(ctx context.Context) *Scoped {
	s := scopedPool.Get().(*Scoped)
	s.Context = ctx
	return s
}

// Release forgets what the Call checked and returns s to the pool.
func (s *Scoped) Release() {
	s.call.Renew()
	s.Context = nil
	scopedPool.Put(s)
}
