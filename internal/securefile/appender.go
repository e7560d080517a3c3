package securefile

import (
	"os"
	"path/filepath"
	"sync"
)

// geteuid is this process's effective uid, asked once.
var geteuid = sync.OnceValue(os.Geteuid)

// maxAppenders bounds the append descriptors kept open.
const maxAppenders = 16

// An appender is a descriptor opened by [OpenAppend] and kept open, with
// the identity of the file it writes and the directory handle it was
// checked under.
//
// Where change notification covers the path (see [Stamp]), the appender
// keeps the Stamp taken before its last successful check: while it is
// valid, nothing that check proved can have changed — no directory on the
// path was replaced, moved or chmod-ed, the name was not deleted, renamed
// or re-created, the file was not chmod/chown-ed, linked or unlinked — so
// the descriptor still writes the regular, writable file at the path, and
// neither [KeptReadyIn] nor [AppendKept] stats it. The file is watched as
// watchAppend: its content changes (our own appends among them) do not
// touch that Stamp. Otherwise the checks run as they always did.
type appender struct {
	mu     sync.Mutex // held while validating and writing, and to close
	f      *os.File   // nil once closed
	dir    *dirHandle
	dev    uint64
	ino    uint64
	st     Stamp // under mu: taken before the last check that succeeded
	closed bool
}

var appenders = struct {
	mu sync.Mutex
	m  map[string]*appender
}{m: make(map[string]*appender)}

// Keep takes f, a descriptor [OpenAppend] returned for path, and keeps it
// open for [AppendKept] and [KeptReady] — unless nothing can be kept here
// (Windows, a relative path) or the file at path is no longer the one f
// writes, in which case f is closed. Either way the caller no longer owns f.
func Keep(path string, f *os.File) {
	if !cacheable || !filepath.IsAbs(path) {
		f.Close()
		return
	}
	path = filepath.Clean(path)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return
	}
	id, ok := identity(fi)
	if !ok {
		f.Close()
		return
	}
	d, err := dirs.get(filepath.Dir(path))
	if err != nil {
		f.Close()
		return
	}
	a := &appender{f: f, dir: d, dev: id.dev, ino: id.ino}
	if !a.check(nil, path) {
		f.Close()
		return
	}
	appenders.mu.Lock()
	old := appenders.m[path]
	if old == nil && len(appenders.m) >= maxAppenders {
		for k, v := range appenders.m { // an arbitrary one
			delete(appenders.m, k)
			old = v
			break
		}
	}
	appenders.m[path] = a
	appenders.mu.Unlock()
	if old != nil {
		old.close() // waits for a write under way
	}
}

// KeptReady reports whether a kept descriptor of path still writes the
// file at path (see [AppendKept]); false means the caller opens it anew
// with [OpenAppend], whose checks and errors are the ones that count.
func KeptReady(path string) bool { return KeptReadyIn(nil, path) }

// KeptReadyIn is [KeptReady] within call: with no system call (but the
// call's one poll) while the appender's Stamp says nothing on the path
// changed since its last check; else the directory's identity is the one
// checked in call (shared with the other files of the directory), the
// file is checked with one fstatat under the directory's descriptor.
func KeptReadyIn(call *Call, path string) bool {
	a := kept(path)
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return false
	}
	if a.st.ValidIn(call) {
		return true
	}
	return a.check(call, filepath.Clean(path))
}

// AppendKept writes line to path with one Write on the descriptor kept for
// it, after checking that the name still leads to the very file the
// descriptor writes: a regular file, not a symlink, that this user may
// write — by the appender's Stamp where change notification covers the
// path (one poll of the reports, which sees a change made since the
// preflight, and no stat), else with one lstat of path. ([KeptReady], the check before the call sends
// anything, also checks the directory.) It returns false, having written nothing, when there is
// no such descriptor or a check fails (the log was rotated, replaced,
// removed, made read-only...): the caller then opens the file with
// [OpenAppend] and [Keep]s the new descriptor. Writes through one kept
// descriptor are serialised.
func AppendKept(path string, line []byte) (bool, error) {
	a := kept(path)
	if a == nil {
		return false, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return false, nil
	}
	if a.st.n != nil {
		notifier.poll() // the changes made during the call, since its preflight
	}
	if !a.st.Valid() && !a.same(path) {
		return false, nil
	}
	_, err := a.f.Write(line)
	return true, err
}

// same is the check before a line is written: one lstat of the path
// (its directory's symlinks followed, the name's not) shows the regular,
// writable file a.f writes. The directory is not checked again here:
// whatever happened to it since [KeptReady], the line goes to the file
// that was checked — a write through a kept descriptor can never reach
// another file, so a symlink planted meanwhile cannot redirect it.
// Where notification covers the path, the Stamp taken before the lstat
// is kept with a success. The caller holds a.mu.
func (a *appender) same(path string) bool {
	st := Stamp{}
	if filepath.IsAbs(path) {
		st = notifier.cover(filepath.Clean(path), watchAppend) // before the check it certifies
	}
	id, typ, err := lstatID(path)
	ok := err == nil && typ.IsRegular() && id.dev == a.dev && id.ino == a.ino && writable(id)
	if ok {
		a.st = st
	} else {
		a.st = Stamp{}
	}
	return ok
}

func kept(path string) *appender {
	if !cacheable || !filepath.IsAbs(path) {
		return nil
	}
	appenders.mu.Lock()
	defer appenders.mu.Unlock()
	if a := appenders.m[path]; a != nil { // the keys are clean paths: a clean one needs no Clean
		return a
	}
	return appenders.m[filepath.Clean(path)]
}

// check is [appender.valid] under a Stamp: the Stamp taken before the
// checks is kept when they succeed and the directory's own handle is
// still vouched for by notification (else it was checked, not watched,
// since the Stamp), the zero Stamp otherwise. The caller holds a.mu (or
// owns a alone).
func (a *appender) check(call *Call, path string) bool {
	call.sync()
	st := notifier.cover(path, watchAppend) // before the checks it certifies
	if !a.valid(call, path) {
		a.st = Stamp{}
		return false
	}
	if !dirs.current(filepath.Dir(path), a.dir) {
		st = Stamp{}
	}
	a.st = st
	return true
}

// valid reports whether the directory handle is still the directory at
// the path's directory, and the name in it is the regular, writable file
// a.f writes. The caller holds a.mu (or owns a alone).
func (a *appender) valid(call *Call, path string) bool {
	d, err := call.dir(filepath.Dir(path))
	if err != nil || d != a.dir {
		return false
	}
	id, typ, err := d.statAt(filepath.Base(path))
	return err == nil && typ.IsRegular() && id.dev == a.dev && id.ino == a.ino && writable(id)
}

// close closes a's descriptor once no write holds it.
func (a *appender) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.closed {
		a.closed = true
		a.f.Close()
	}
}

// writable reports whether an open for writing would be allowed by the
// permission bits: the owner's write bit for a file this user owns, and
// for root always. Anything else (a file of another user or group) is not
// judged here: false sends the caller to a new open, which the kernel
// judges.
func writable(id fileID) bool {
	euid := geteuid()
	if euid == 0 {
		return true
	}
	return int(id.uid) == euid && id.mode&0o200 != 0
}
