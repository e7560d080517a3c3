package securefile

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Change notification (issue 22): where the kernel reports every change
// to a file and to each directory on its path (Linux, inotify, on a local
// file system), a snapshot is validated by the absence of a report
// instead of by stats.
//
// Every path a snapshot depends on is a chain of nodes, one per path
// component from "/". Each node has a generation that grows whenever a
// report concerns it: an event of the node's own watch (a file written,
// truncated, chmod/chown-ed, deleted or moved; a directory chmod-ed,
// deleted or moved), an event of its parent directory's watch naming it
// (created, deleted, renamed from or to, its attributes changed), the
// loss of its watch (the kernel dropped it, or it was evicted). A global
// epoch grows with a queue overflow, a change of this process's mount
// table and a failure to read the queue. A [Stamp] is the sum of the
// epoch and of the generations along its chain, taken after the watches
// were in place and before the check it certifies (the lstat, fstatat and
// read of the slow path): the sum of counters that only grow is unchanged
// only if none grew, so a Stamp still valid says that nothing on the path
// changed since the check.
//
// The kernel queues an event inside the system call that made the change,
// before that call returns, and every call starts by draining the queue
// ([notifier.poll]: one epoll_wait(2) when nothing changed), so a change
// that completed before a call started is always seen by that call.
// Where a watch cannot be placed (a symlink on the path, a file system
// that is not allow-listed, the watch limit, no inotify) the Stamp is the
// zero one, which is never valid: that path is checked with stats, as
// before. A Stamp is valid for at most maxStampAge: a write through a
// shared memory mapping raises no event (but moves mtime, which the stat
// path sees), so such a write is seen within that bound instead of on the
// next call.

// maxStampAge bounds how long a Stamp is trusted without a stat.
const maxStampAge = time.Second

// maxNodes bounds the nodes (and so the watches) kept: past it the least
// recently used node without children is dropped, its watch removed.
const maxNodes = 2048

// A Stamp records that the files and directories on a path were watched
// and checked: [Stamp.Valid] reports whether nothing on the path has
// changed since. The zero Stamp is never valid.
type Stamp struct {
	n   *node
	sum uint64
	// changes is notifier.changes when taken: unchanged since, nothing
	// anywhere changed.
	changes uint64
	at      int64 // notifier.now when taken
	gone    bool  // a directory on the path (not the leaf) was missing
	meta    bool  // a watchAppend Stamp: the leaf's content changes (n.data) do not count
}

// A watchKind is what a watch reports about the object at its path.
type watchKind uint8

const (
	// watchDir: a directory — its entries created, deleted, moved or
	// their attributes changed; itself chmod-ed, deleted or moved.
	watchDir watchKind = iota + 1
	// watchFile: a file whose content counts (a snapshot): written,
	// truncated, closed after a write (content), chmod/chown-ed, its link
	// count changed, deleted or moved (identity).
	watchFile
	// watchAppend: a file appended to through a kept descriptor (the
	// audit log), whose content does not count: only what changes what
	// the appender's check proves (mode, owner, link count, deleted,
	// moved). Our own appends raise no event on such a watch, so they do
	// not invalidate the Stamp that spares the next call its stat.
	watchAppend
)

// merge is the kind a node watched as have is to be watched as when want
// is asked for, its inode unchanged: the kernel keeps one watch (one
// mask) per inode, and a mask is never narrowed while a Stamp may rely on
// it. A file both read as a snapshot and appended to is watched as
// watchFile (its content events reach n.data, which a watchAppend Stamp
// ignores); a directory asked for as a file, or the reverse, is watched
// as asked (the dir mask is IN_ONLYDIR, so one of the two fails and
// checks with stats).
func merge(have, want watchKind) watchKind {
	if (have == watchFile && want == watchAppend) || (have == watchAppend && want == watchFile) {
		return watchFile
	}
	return want
}

// node is one path component.
type node struct {
	parent   *node
	name     string
	path     string
	gen      atomic.Uint64 // identity: anything but a change of content
	data     atomic.Uint64 // content: the node's own watch saw it written
	used     atomic.Uint64 // notifier.tick when last used
	children map[string]*node

	// Under notifier.mu:
	state    uint8     // stNone, stWatched, stMissing, stFailed
	kind     watchKind // the kind it was watched as
	wd       int32     // stWatched: the watch descriptor
	keyGen   uint64
	keyAnc   uint64 // the state holds while gen and the ancestors' sum are these
	detached bool   // dropped from the tree (evicted)
}

const (
	stNone = iota
	stWatched
	stMissing // nothing at the path: its parent's watch reports a creation
	stFailed  // cannot be watched reliably: checked with stats
)

// errMissing is a kernel's "nothing at the path" (ENOENT).
var errMissing = errors.New("missing")

// kernel is the system's change notification.
type kernel interface {
	// add watches path as kind (the mask replacing any the inode had), a
	// symlink at path not followed: the watch descriptor, errMissing when
	// nothing is there, another error when it cannot be watched reliably
	// (not a directory, a file system whose reports are not relied on,
	// limits).
	add(path string, kind watchKind) (int32, error)
	// rm removes a watch.
	rm(wd int32)
	// ready reports whether events are queued and whether the mount
	// table changed, without waiting (one system call).
	ready() (events, mounts bool, err error)
	// drain reads every queued event, calling f for each: wd -1 is a
	// queue overflow; name is "" for an event about the watched object
	// itself; content means the event is only a change of the watched
	// file's content (written, closed after a write); gone means the
	// watch was removed by the kernel.
	drain(f func(wd int32, name []byte, content, gone bool)) error
	close()
}

// notifier is the process's one change notification.
var notifier watcher

type watcher struct {
	once  sync.Once
	epoch atomic.Uint64
	// changes counts every growth of the epoch or of any node's
	// generation (grow): a Stamp taken when it stood where it stands now
	// is valid with no walk of its path.
	changes atomic.Uint64
	now     atomic.Int64 // monotonic ns at the last poll
	tick    atomic.Uint64
	off     atomic.Bool // tests: every Stamp invalid, nothing watched

	mu    sync.Mutex
	k     kernel // nil: no notification here
	root  *node
	byWD  map[int32][]*node
	nodes int
}

// openKernel is the platform's change notification, or an error where
// there is none (notify_linux.go, notify_other.go); tests replace it.
var openKernel = openPlatformKernel

// reliableFS reports whether every change under path is reported (a
// local file system); tests replace it to mark one unreliable.
var reliableFS = localFileSystem

var monoStart = time.Now()

func mono() int64 { return int64(time.Since(monoStart)) }

func (w *watcher) init() {
	w.once.Do(func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.root = &node{path: "/"}
		w.byWD = make(map[int32][]*node)
		w.now.Store(mono())
		if k, err := openKernel(); err == nil {
			w.k = k
		}
	})
}

// DisableNotification makes this process check every snapshot with
// stats, the path of systems without change notification, and place no
// watch. It is for a process that makes one call or a few (`ocfetch get`,
// `explain`): placing the watches costs more than the stats they spare —
// each is a watch on every directory above a policy file (/, /home, /tmp
// …), and the kernel visits the cached entries of each directory it
// watches — and such a process never makes the calls where they pay.
// Call it before the first call; it cannot be undone.
func DisableNotification() {
	w := &notifier
	w.off.Store(true)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.k != nil {
		w.k.close()
		w.k = nil
	}
}

// poll drains the events queued since the last poll: one system call
// when nothing changed. Every call polls before it trusts a Stamp
// ([Call.sync]).
func (w *watcher) poll() {
	if w.off.Load() {
		return
	}
	w.init()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.now.Store(mono())
	w.tick.Add(1)
	if w.k == nil {
		return
	}
	events, mounts, err := w.k.ready()
	if err == nil && events {
		err = w.k.drain(w.event)
	}
	if mounts || err != nil {
		// A mount may hide or replace any directory: check everything
		// again. A queue that cannot be read reports nothing more.
		w.grow(&w.epoch)
	}
	if err != nil {
		w.k.close()
		w.k = nil
	}
}

// grow adds one to c, an epoch or a generation, and to w.changes. The
// caller holds w.mu, as [watcher.cover] does while it makes a Stamp.
func (w *watcher) grow(c *atomic.Uint64) {
	c.Add(1)
	w.changes.Add(1)
}

// event applies one event. The caller holds w.mu.
func (w *watcher) event(wd int32, name []byte, content, gone bool) {
	if wd == -1 { // the queue overflowed: events were lost
		w.grow(&w.epoch)
		return
	}
	ns := w.byWD[wd]
	if gone {
		delete(w.byWD, wd)
	}
	for _, n := range ns {
		switch {
		case len(name) > 0:
			if c := n.children[string(name)]; c != nil {
				w.grow(&c.gen)
			}
		case content && !gone:
			w.grow(&n.data)
		default:
			w.grow(&n.gen)
			if gone && n.state == stWatched && n.wd == wd {
				n.state, n.wd = stNone, -1
			}
		}
	}
}

// Valid reports whether nothing on the path s was taken for has changed
// since: no report concerns it, and it is younger than maxStampAge. The
// reports are those drained by the last poll (the call's, [Call.sync]).
func (s Stamp) Valid() bool {
	if s.n == nil {
		return false
	}
	w := &notifier
	if w.now.Load()-s.at > int64(maxStampAge) || w.off.Load() {
		return false
	}
	if w.changes.Load() != s.changes {
		return s.unchanged(w)
	}
	s.n.used.Store(w.tick.Load())
	return true
}

// unchanged is [Stamp.Valid] past a change somewhere: whether none of
// the counters on s's path grew since s was taken.
func (s Stamp) unchanged(w *watcher) bool {
	sum := w.epoch.Load()
	if !s.meta {
		sum += s.n.data.Load()
	}
	for n := s.n; n != nil; n = n.parent {
		sum += n.gen.Load()
	}
	if sum != s.sum {
		return false
	}
	s.n.used.Store(w.tick.Load())
	return true
}

// cover puts watches on every directory of path and on path itself (as
// kind), and returns the Stamp of path now: the zero Stamp where path
// cannot be watched reliably. It must be taken before the check whose
// outcome the Stamp is to certify. A watchAppend Stamp does not count the
// leaf's content changes.
func (w *watcher) cover(path string, kind watchKind) Stamp {
	if w.off.Load() || !filepath.IsAbs(path) {
		return Stamp{}
	}
	w.init()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.k == nil {
		return Stamp{}
	}
	path = filepath.Clean(path)
	tick := w.tick.Load()
	changes := w.changes.Load() // w.mu held: nothing grows until the Stamp is made
	anc := w.epoch.Load()
	n := w.root
	n.used.Store(tick)
	missing, gone := false, false
	if w.watch(n, watchDir, anc) != stWatched {
		return Stamp{}
	}
	rest := strings.TrimPrefix(filepath.ToSlash(path), "/")
	for rest != "" {
		name := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			name, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		anc += n.gen.Load()
		c := w.child(n, name)
		c.used.Store(tick)
		k := kind
		if rest != "" {
			k = watchDir
		}
		if missing {
			// Below a missing directory: nothing to watch; its creation
			// is reported by the watch above it.
			w.detach(c)
			c.state, c.keyGen, c.keyAnc = stMissing, c.gen.Load(), anc
			gone = gone || rest != ""
		} else {
			switch w.watch(c, k, anc) {
			case stWatched:
			case stMissing:
				missing = true
				gone = rest != ""
			default:
				return Stamp{}
			}
		}
		n = c
	}
	st := Stamp{n: n, sum: anc + n.gen.Load(), changes: changes, at: w.now.Load(), gone: gone, meta: kind == watchAppend}
	if !st.meta {
		st.sum += n.data.Load()
	}
	return st
}

// child returns n's child name, made if needed (evicting the least
// recently used node past maxNodes). The caller holds w.mu.
func (w *watcher) child(n *node, name string) *node {
	if c := n.children[name]; c != nil {
		return c
	}
	if w.nodes >= maxNodes {
		w.evict()
	}
	if n.children == nil {
		n.children = make(map[string]*node)
	}
	p := n.path + "/" + name
	if n.parent == nil {
		p = "/" + name
	}
	c := &node{parent: n, name: name, path: p, wd: -1}
	n.children[name] = c
	w.nodes++
	return c
}

// evict drops the least recently used node without children, and its
// watch. Its generation grows: a Stamp through it is no longer valid. The
// caller holds w.mu.
func (w *watcher) evict() {
	tick := w.tick.Load() // the nodes of the path being covered are not dropped
	var victim *node
	var walk func(n *node)
	walk = func(n *node) {
		for _, c := range n.children {
			if len(c.children) == 0 {
				if c.used.Load() >= tick {
					continue
				}
				if victim == nil || c.used.Load() < victim.used.Load() {
					victim = c
				}
				continue
			}
			walk(c)
		}
	}
	walk(w.root)
	if victim == nil {
		return
	}
	w.detach(victim)
	w.grow(&victim.gen)
	victim.detached = true
	delete(victim.parent.children, victim.name)
	w.nodes--
}

// watch makes sure n is watched as kind (merged with the kind it is
// watched as: [merge]), as the inode at its path now, given the sum of
// its ancestors' generations anc: a watch placed while its ancestors or n
// itself were as they are now, with a mask reporting what kind needs, is
// kept, else it is placed again (the path may lead to another inode, or
// the mask must widen). It returns the node's state. The caller holds
// w.mu.
func (w *watcher) watch(n *node, kind watchKind, anc uint64) uint8 {
	g := n.gen.Load()
	if n.state != stNone {
		kind = merge(n.kind, kind)
	}
	if n.state != stNone && n.keyGen == g && n.keyAnc == anc && n.kind == kind {
		return n.state
	}
	wd, err := w.k.add(n.path, kind)
	if n.state == stWatched && (err != nil || wd != n.wd) {
		w.detach(n)
		g = n.gen.Load() // detach made every Stamp through n invalid
	}
	n.kind, n.keyGen, n.keyAnc = kind, g, anc
	switch {
	case err == nil:
		if n.state != stWatched || n.wd != wd {
			w.byWD[wd] = append(w.byWD[wd], n)
		}
		n.state, n.wd = stWatched, wd
	case errors.Is(err, errMissing):
		n.state, n.wd = stMissing, -1
	default:
		n.state, n.wd = stFailed, -1
	}
	return n.state
}

// detach removes n's watch (the kernel's too, when no other node shares
// it: a hard link, a directory reached by two paths). n's generation
// grows: a Stamp through n relied on the watch, whose reports stop here
// (the kernel's IN_IGNORED for it finds no node). The caller holds w.mu.
func (w *watcher) detach(n *node) {
	if n.state != stWatched {
		return
	}
	w.grow(&n.gen)
	wd := n.wd
	ns := w.byWD[wd]
	for i, x := range ns {
		if x == n {
			ns = append(ns[:i], ns[i+1:]...)
			break
		}
	}
	if len(ns) == 0 {
		delete(w.byWD, wd)
		w.k.rm(wd)
	} else {
		w.byWD[wd] = ns
	}
	n.state, n.wd = stNone, -1
}

// Watch returns the Stamp of the directory or file at path (absolute):
// every directory on the way and path itself are watched from now on, and
// [Stamp.Valid] reports, on a later call, whether any of them changed
// since this moment. Take it before checking what it is to certify, in
// call (which drains the reports first); keep the outcome of the check
// with it. The zero Stamp (no notification here, a symlink on the path,
// a file system not relied on) is never valid: check with stats.
func Watch(call *Call, path string, dir bool) Stamp {
	call.sync()
	kind := watchFile
	if dir {
		kind = watchDir
	}
	return notifier.cover(path, kind)
}

// ValidIn is [Stamp.Valid] in call: the reports queued before call
// started are drained first.
func (s Stamp) ValidIn(call *Call) bool {
	if s.n == nil {
		return false
	}
	call.sync()
	return s.Valid()
}

// checks counts the identity checks (stat system calls) made on the
// slow path, process-wide.
var checks atomic.Uint64

// Checks returns how many file and directory identity checks (lstat,
// fstatat, statx, a path's resolution) this process has made through this
// package and the packages that report theirs ([NoteCheck]): tests and
// benchmarks use it to state that a call found unchanged makes none.
func Checks() uint64 { return checks.Load() }

// NoteCheck counts one identity check made outside this package (the
// trust store's statx of a workspace root) in [Checks].
func NoteCheck() { checks.Add(1) }
