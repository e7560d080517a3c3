package trust

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/ocfetch/ocfetch/internal/securefile"
)

// pin is the one root a process was told to trust ([Store.Pin]).
type pin struct {
	path string
	id   ident
	how  string
	at   time.Time
}

// Pin returns a copy of s that also trusts the directory at root, for as
// long as the copy is used and without writing the store: the operator's
// explicit trust of one workspace for one process (`ocfetch mcp
// --trust-root DIR`, OCFETCH_TRUST_ROOT, for a workspace mounted into a
// container at a path the store has never seen). how says which
// ("--trust-root").
//
// root must be an absolute path that names an existing directory with no
// symlink on the way: it is cleaned, and the cleaned path must be its own
// real path (filepath.EvalSymlinks), so that what the operator wrote is
// exactly what is trusted. Pin records the directory's identity and birth
// time (where the file system keeps one) now; [Store.Status] then trusts
// a root that is this path, cleaned — not a path below or above it, nor
// another path reaching it through a symlink — while the directory there
// is still the one pinned (a directory deleted and made again, or another
// one mounted over it, is not). Every other root is decided by the store
// as before.
func (s *Store) Pin(root, how string) (*Store, error) {
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("%q is not an absolute path", root)
	}
	clean := filepath.Clean(root)
	real, err := filepath.EvalSymlinks(clean)
	if err != nil {
		return nil, err
	}
	if !samePath(filepath.Clean(real), clean) {
		return nil, fmt.Errorf("%s leads through a symlink to %s; name the directory itself", clean, real)
	}
	id, err := identify(clean)
	if err != nil {
		return nil, err
	}
	c := *s
	c.pin = &pin{path: clean, id: id, how: how, at: s.now()}
	return &c, nil
}

// Unpinned returns s without the root [Store.Pin] added: a store that
// trusts what its entries trust and nothing else (s itself when nothing
// is pinned). The decision step asks it while the managed policy forbids
// the operator's flag ("allow_trust_flag": false), so that the policy
// takes effect on the next call even in a process started with the flag.
func (s *Store) Unpinned() *Store {
	if s.pin == nil {
		return s
	}
	c := *s
	c.pin = nil
	return &c
}

// PinnedRoot returns the root [Store.Pin] named and how, "" when none.
func (s *Store) PinnedRoot() (root, how string) {
	if s.pin == nil {
		return "", ""
	}
	return s.pin.path, s.pin.how
}

// pinned returns the status of root when it is the pinned root and the
// directory there is still the one pinned.
func (s *Store) pinned(call *securefile.Call, root string) (Status, bool) {
	p := s.pin
	if p == nil {
		return Status{}, false
	}
	abs, err := filepath.Abs(root)
	if err != nil || !samePath(filepath.Clean(abs), p.path) {
		return Status{}, false
	}
	key, now, err, idErr := resolve(call, filepath.Clean(abs))
	if err != nil || !samePath(key, p.path) {
		return Status{}, false // a symlink now stands where the directory was
	}
	if idErr != nil || now != p.id {
		return Status{}, false // another directory is there now
	}
	e := Entry{Path: p.path, ID: p.id.id, TrustedAt: p.at, How: p.how}
	if p.id.birth != "" {
		e.Incarnation = birthPrefix + p.id.birth
	}
	return Status{Found: true, Entry: e, State: Present, Pinned: true}, true
}
