package securefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// RacyWindow is how close to the moment a file was read its modification
// or status-change time may be for the snapshot to be reused: a file whose
// mtime or ctime is within RacyWindow of the read is read again on every
// call, because a second write inside the file system's timestamp
// granularity would leave size and times unchanged (git's "racily clean"
// index entries). Measured on Linux ext4, tmpfs and overlayfs the
// granularity is one kernel tick (1-4 ms; docs/PERFORMANCE.md); 2 s is
// FAT's mtime granularity and covers NFS servers with a coarse clock or
// a little skew, at the cost of re-reading a file edited in the last two
// seconds.
const RacyWindow = 2 * time.Second

// maxDirs bounds the directory handles kept open by all caches together.
const maxDirs = 64

// A Cache keeps, for each file it has read, the value decoded from it
// with the identity the file had when it was read (device, inode, size,
// mode, owner, mtime and ctime in nanoseconds) and the identity of its
// directory, whose handle ([os.Root]) stays open. [Cache.Load] checks the
// directory with one lstat of its path and the file with one fstatat
// relative to the open handle, and reads and decodes the file again only
// when either identity changed, when the file's mtime or ctime was within
// [RacyWindow] of the read, or when the previous outcome was not a
// snapshot (an error other than "missing"). A missing file is a snapshot
// too: the next call costs the same two stats. So an edit is seen on the
// next call, and a deletion closes the door on the next call, exactly as
// when the file was read every time.
//
// Where change notification covers the file's whole path (Linux, a local
// file system, no symlink on the way: see [Stamp]), a snapshot carries the
// Stamp taken before the checks that made it, and Load returns it with no
// system call (but the call's one poll) while the Stamp is valid: no
// event concerned the file, its directory or a directory above since. A
// file changed within RacyWindow is then kept too (a later write is
// reported even when size and times stay), but never reused by the stat
// path.
//
// What Load returns is what [ReadFile] would return, decoded: the same
// refusals of symlinks (at the directory or the file), of anything not a
// regular file, of files over the limit, with the same messages. The
// decoded value is shared between callers: it must not be modified.
//
// The cache holds at most its cap of files (keyed by absolute path) and
// the package at most 64 open directories; past that an arbitrary entry
// is dropped. It is safe for concurrent use.
//
// On Windows, and for a relative path, nothing is cached: every Load
// reads the file (an open directory handle would keep the user from
// renaming or deleting the directory there).
type Cache[T any] struct {
	limit  int64
	cap    int
	decode func(path string, data []byte, fi fs.FileInfo, err error) (T, error)
	now    func() time.Time // tests move the clock; nil means time.Now

	mu      sync.Mutex
	entries map[string]*snap[T]
	// recent holds, per slot (pathSlot), the snapshot last stored for a
	// path there, also in entries: the lookup of an unchanged file takes
	// no lock and hashes nothing. Written under mu.
	recent [8]atomic.Pointer[snap[T]]
}

// snap is one file's snapshot. It is never modified once stored.
type snap[T any] struct {
	path    string     // the key it is stored under (set by store)
	dir     *dirHandle // nil: the directory was missing
	present bool       // false: the file was missing
	racy    bool       // read within RacyWindow of its change: only st vouches for it
	id      fileID
	val     T
	err     error
	st      Stamp // taken before the checks of this snapshot; valid: unchanged since
}

// NewCache returns a cache of files of at most limit bytes holding at most
// cap files. decode turns what [ReadFile] returned for path — the data and the
// FileInfo of the file read, or the error (a missing file: one wrapping
// fs.ErrNotExist) — into the value and error Load returns.
func NewCache[T any](limit int64, cap int, decode func(path string, data []byte, fi fs.FileInfo, err error) (T, error)) *Cache[T] {
	return &Cache[T]{limit: limit, cap: max(cap, 1), decode: decode, entries: make(map[string]*snap[T])}
}

// Load returns decode's result for the file at path: from the snapshot
// when the file and its directory are unchanged, else from a new read.
// It is [Cache.LoadIn] outside any [Call].
func (c *Cache[T]) Load(path string) (T, error) { return c.LoadIn(nil, path) }

// LoadIn is [Cache.Load] within call: the first Load of path in call
// checks it (the directory's identity once per call for all the files in
// it, see [Call]), and every later Load of path in the same call returns
// what the first one returned, without a system call. A nil call checks
// on every Load.
func (c *Cache[T]) LoadIn(call *Call, path string) (T, error) {
	s := c.snapIn(call, path)
	return s.val, s.err
}

// A DirOwner is the owner and permission bits of a file's directory, as
// the check that vouches for the file's snapshot found them: the lstat
// every file of the directory shares, or, while a [Stamp] is valid, the
// last one (nothing on the path changed since). Known is false where no
// such check was made (Windows, a relative path, a directory that could
// not be opened, a file read the usual way): the caller stats the
// directory itself.
type DirOwner struct {
	UID   uint32
	Perm  fs.FileMode
	Known bool
}

// LoadOwnedIn is [Cache.LoadIn] that also returns the owner of path's
// directory as checked for the snapshot returned, so that a caller that
// must vouch for the directory's owner (the managed policy) neither
// derives the directory's path nor checks it again on every call.
func (c *Cache[T]) LoadOwnedIn(call *Call, path string) (T, DirOwner, error) {
	s := c.snapIn(call, path)
	var o DirOwner
	if s.dir != nil {
		o = DirOwner{UID: s.dir.id.uid, Perm: fs.FileMode(s.dir.id.mode & 0o777), Known: true}
	}
	return s.val, o, s.err
}

// snapIn returns the snapshot LoadIn answers from. On the path of a file
// unchanged since the last call (a valid Stamp) it takes the call's lock
// once: the lookup of what the call kept, the call's one poll, and the
// keeping of the snapshot for the call's later steps.
func (c *Cache[T]) snapIn(call *Call, path string) *snap[T] {
	if !cacheable || !filepath.IsAbs(path) {
		data, fi, err := readFile(path, c.limit)
		v, derr := c.decode(path, data, fi, err)
		return &snap[T]{val: v, err: derr}
	}
	old := c.lookup(path)
	if old == nil {
		path = filepath.Clean(path) // the keys are clean paths
	}
	if call == nil {
		notifier.poll()
		if old == nil || !old.st.Valid() {
			old = c.load(nil, path) // something on the path changed, or no Stamp vouches
		}
		return old
	}
	call.mu.Lock()
	for _, e := range call.files {
		if e.cache == any(c) && e.path == path {
			call.mu.Unlock()
			return e.s.(*snap[T])
		}
	}
	call.pollLocked()
	if old != nil && old.st.Valid() {
		call.files = append(call.files, callFile{cache: c, path: path, s: old})
		call.mu.Unlock()
		return old
	}
	call.mu.Unlock()
	s := c.load(call, path) // something on the path changed, or no Stamp vouches
	call.keepFile(c, path, s)
	return s
}

// load checks path (the directory through call) and returns its snapshot,
// stored or new. The caller has drained the change reports of its call.
func (c *Cache[T]) load(call *Call, path string) *snap[T] {
	dir, name := filepath.Dir(path), filepath.Base(path)
	old := c.lookup(path)
	st := notifier.cover(path, watchFile) // before the checks it certifies

	d, dirErr := call.dir(dir)
	if dirErr != nil {
		missing := errors.Is(dirErr, fs.ErrNotExist)
		if !st.gone {
			st = Stamp{} // the directory was there when the stamp was taken
		}
		if missing && old != nil && old.dir == nil {
			return c.restamp(path, old, st) // the directory is still missing
		}
		data, fi, rerr := readFile(path, c.limit)
		v, err := c.decode(path, data, fi, rerr)
		s := &snap[T]{val: v, err: err, st: st}
		if missing && errors.Is(rerr, fs.ErrNotExist) {
			c.store(path, s)
		} else {
			c.drop(path)
		}
		return s
	}
	id, typ, err := d.statAt(name)
	if !dirs.current(dir, d) {
		st = Stamp{} // the directory was checked, not watched, since st
	}
	switch {
	case err == nil:
		if old != nil && old.present && !old.racy && old.dir == d && typ.IsRegular() && id == old.id {
			return c.restamp(path, old, st)
		}
	case errors.Is(err, fs.ErrNotExist):
		if old != nil && !old.present && old.dir == d {
			return c.restamp(path, old, st)
		}
	}

	// Read again, through the handle just validated.
	start := c.clock()
	data, fi, rerr := readIn(d.root, path, name, c.limit)
	if errors.Is(rerr, os.ErrClosed) || errors.Is(err, os.ErrClosed) {
		// Another call dropped the handle meanwhile: read the usual way.
		data, fi, rerr = readFile(path, c.limit)
		v, derr := c.decode(path, data, fi, rerr)
		return &snap[T]{val: v, err: derr}
	}
	v, derr := c.decode(path, data, fi, rerr)
	switch {
	case rerr == nil:
		// A file changed within the racy window is kept only under a
		// Stamp: a later write is reported even if it leaves size and
		// times as they are, but a stat could not tell.
		if id, ok := identity(fi); ok && (!id.racy(start) || st.n != nil) {
			s := &snap[T]{dir: d, present: true, id: id, val: v, err: derr, st: st, racy: id.racy(start)}
			c.store(path, s)
			return s
		}
		c.drop(path)
	case errors.Is(rerr, fs.ErrNotExist) && err != nil && errors.Is(err, fs.ErrNotExist):
		s := &snap[T]{dir: d, val: v, err: derr, st: st}
		c.store(path, s)
		return s
	default:
		c.drop(path)
	}
	return &snap[T]{val: v, err: derr}
}

// restamp returns old, found unchanged by the checks st was taken
// before, keeping st with it (a copy: a stored snapshot is never
// modified).
func (c *Cache[T]) restamp(path string, old *snap[T], st Stamp) *snap[T] {
	if st.n == nil && old.st.n == nil {
		return old
	}
	s := *old
	s.st = st
	c.store(path, &s)
	return &s
}

func (c *Cache[T]) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

// pathSlot is path's slot of Cache.recent (see [spread]).
func pathSlot(path string) int { return int(spread(path) % 8) }

// lookup returns the snapshot stored for path, or nil.
func (c *Cache[T]) lookup(path string) *snap[T] {
	if s := c.recent[pathSlot(path)].Load(); s != nil && s.path == path {
		return s
	}
	c.mu.Lock()
	s := c.entries[path]
	c.mu.Unlock()
	return s
}

// store keeps s, not yet shared, as path's snapshot.
func (c *Cache[T]) store(path string, s *snap[T]) {
	s.path = path
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[path]; !ok && len(c.entries) >= c.cap {
		for k := range c.entries { // an arbitrary one
			c.dropLocked(k)
			break
		}
	}
	c.entries[path] = s
	c.recent[pathSlot(path)].Store(s)
}

func (c *Cache[T]) drop(path string) {
	c.mu.Lock()
	c.dropLocked(path)
	c.mu.Unlock()
}

// dropLocked forgets path's snapshot. The caller holds c.mu.
func (c *Cache[T]) dropLocked(path string) {
	delete(c.entries, path)
	if r := &c.recent[pathSlot(path)]; r.Load() != nil && r.Load().path == path {
		r.Store(nil)
	}
}

// Forget drops every snapshot, so that the next Load of each file reads it.
func (c *Cache[T]) Forget() {
	c.mu.Lock()
	clear(c.entries)
	for i := range c.recent {
		c.recent[i].Store(nil)
	}
	c.mu.Unlock()
}

// fileID is what a file's snapshot is valid for. Any write changes mtime
// and ctime; chmod, chown, link and rename change ctime, which no call
// can set back; an atomic replace changes the inode.
type fileID struct {
	dev, ino     uint64
	size         int64
	mode         uint32
	uid, gid     uint32
	mtime, ctime int64 // ns since the epoch
}

// racy reports whether the file changed so close to start, the moment the
// read began, that another change could leave its identity as it is.
func (id fileID) racy(start time.Time) bool {
	limit := start.Add(-RacyWindow).UnixNano()
	return id.mtime >= limit || id.ctime >= limit
}

// dirHandle is an open directory and the identity it was opened under:
// an [os.Root] for reads, and (where the system has fstatat) a descriptor
// of the same directory for the per-call checks.
type dirHandle struct {
	root *os.Root
	id   fileID
	st   Stamp // under dirs.mu: taken before the check of id

	mu     sync.RWMutex // held (shared) across a use of fd, to close
	f      *os.File     // nil: statAt goes through root
	fd     int
	closed bool
}

// statAt is one stat of name in the directory, a symlink not followed:
// one fstatat(2) under the open descriptor, no allocation. It returns an
// error wrapping os.ErrClosed once the handle is closed.
func (d *dirHandle) statAt(name string) (fileID, fs.FileMode, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return fileID{}, 0, os.ErrClosed
	}
	if d.f != nil {
		return fstatat(d.fd, name)
	}
	checks.Add(1)
	fi, err := d.root.Lstat(name)
	if err != nil {
		return fileID{}, 0, err
	}
	id, ok := identity(fi)
	if !ok {
		return fileID{}, 0, errors.New(name + ": no identity")
	}
	return id, fi.Mode().Type(), nil
}

// close closes the handle once no statAt holds it (os.Root waits for its
// own operations under way).
func (d *dirHandle) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.closed {
		d.closed = true
		d.root.Close()
		if d.f != nil {
			d.f.Close()
		}
	}
}

type dirTable struct {
	mu sync.Mutex
	m  map[string]*dirHandle
}

var dirs = dirTable{m: make(map[string]*dirHandle)}

// dirIdentity is what a directory handle is valid for: not its size and
// times, since entries come and go (the file checks are per file).
func dirIdentity(id fileID) fileID {
	id.size, id.mtime, id.ctime = 0, 0, 0
	return id
}

// get returns the open handle of dir after checking that the path still
// names the directory that was opened (not a symlink, same device, inode,
// mode and owner): with no system call while the handle's [Stamp] is
// valid (nothing on the path was reported changed since it was checked),
// else with one lstat of the path; otherwise it opens dir again as
// [ReadFile] does. An error wrapping fs.ErrNotExist with a nil handle
// means dir is missing. The caller has drained the change reports of its
// call ([Call.sync]).
func (t *dirTable) get(dir string) (*dirHandle, error) {
	t.mu.Lock()
	d := t.m[dir]
	if d != nil && d.st.Valid() {
		t.mu.Unlock()
		return d, nil
	}
	t.mu.Unlock()
	st := notifier.cover(dir, watchDir) // before the check it certifies
	id, typ, err := lstatID(dir)
	if err != nil {
		t.forget(dir)
		return nil, err
	}
	id = dirIdentity(id)
	if d != nil && d.id == id && typ == fs.ModeDir {
		t.mu.Lock()
		if t.m[dir] == d {
			d.st = st
		}
		t.mu.Unlock()
		return d, nil
	}
	if d != nil {
		t.forget(dir)
	}
	r, err := openDir(dir, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, ErrChanged) // the caller reads the usual way for the usual error
	}
	st2, err := r.Stat(".")
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("%s: %w", dir, ErrChanged)
	}
	if sid, ok := identity(st2); !ok || dirIdentity(sid) != id {
		r.Close()
		return nil, fmt.Errorf("%s: %w", dir, ErrChanged)
	}
	d = &dirHandle{root: r, id: id, st: st}
	if f, err := openDirFD(r); err == nil && f != nil {
		d.f, d.fd = f, int(f.Fd())
	}
	t.mu.Lock()
	if len(t.m) >= maxDirs {
		for k, old := range t.m {
			delete(t.m, k)
			old.close()
			break
		}
	}
	if prev := t.m[dir]; prev != nil {
		prev.close()
	}
	t.m[dir] = d
	t.mu.Unlock()
	return d, nil
}

// current reports whether d is still dir's handle and its Stamp is
// valid: nothing on dir's path was reported changed since d was checked.
func (t *dirTable) current(dir string, d *dirHandle) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return d != nil && t.m[dir] == d && d.st.Valid()
}

func (t *dirTable) forget(dir string) {
	t.mu.Lock()
	if d := t.m[dir]; d != nil {
		delete(t.m, dir)
		d.close()
	}
	t.mu.Unlock()
}
