package trust

import (
	"path/filepath"
	"sync"

	"github.com/ocfetch/ocfetch/internal/securefile"
)

// resolved is what [Key] and identify said about one workspace root, and
// the Stamp taken before they were asked.
type resolved struct {
	key   string
	id    ident
	idErr error
	st    securefile.Stamp
}

// maxResolved bounds the roots whose resolution is kept.
const maxResolved = 64

var roots = struct {
	mu sync.Mutex
	m  map[string]*resolved
}{m: make(map[string]*resolved)}

// resolve returns root's key ([Key]: its real path) and what the file
// system says about the directory there (identify), as of this call.
//
// Where change notification covers root's path (internal/securefile's
// [securefile.Watch]: Linux, a local file system, no symlink on the path,
// so that the key is root itself) both are kept, and the next calls
// reuse them without a system call for as long as nothing on the path is
// reported changed: a directory of the path renamed, replaced, turned
// into a symlink or chmod-ed, the root itself moved or deleted. Elsewhere
// they are asked again on every call, as before.
func resolve(call *securefile.Call, root string) (key string, id ident, keyErr, idErr error) {
	roots.mu.Lock()
	r := roots.m[root] // only absolute, clean roots are kept
	roots.mu.Unlock()
	if r != nil && r.st.ValidIn(call) {
		return r.key, r.id, nil, r.idErr
	}
	cacheable := filepath.IsAbs(root) && filepath.Clean(root) == root
	var st securefile.Stamp
	if cacheable {
		st = securefile.Watch(call, root, true) // before the checks it certifies
	}
	securefile.NoteCheck()
	key, keyErr = Key(root)
	if keyErr != nil {
		return "", ident{}, keyErr, nil
	}
	securefile.NoteCheck()
	id, idErr = identify(key)
	if cacheable && samePath(key, root) {
		roots.mu.Lock()
		if _, ok := roots.m[root]; !ok && len(roots.m) >= maxResolved {
			for k := range roots.m { // an arbitrary one
				delete(roots.m, k)
				break
			}
		}
		roots.m[root] = &resolved{key: key, id: id, idErr: idErr, st: st}
		roots.mu.Unlock()
	}
	return key, id, nil, idErr
}
