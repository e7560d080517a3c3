package trust

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ocfetch/ocfetch/internal/rootfile"
	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/strictjson"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/workspace"
)

// FileName is the trust store's name in its directory.
const FileName = "trust.json"

// SchemaVersion is the trust.json schema this package reads and writes.
const SchemaVersion = 1

// MaxFileSize bounds trust.json: 1 MiB, thousands of workspaces.
const MaxFileSize = 1 << 20

// maxHow bounds an entry's "how".
const maxHow = 200

// filePerm: the list of a user's projects is nobody else's business.
const filePerm = 0o600

// Options configure [Open]. A nil *Options is the zero value.
type Options struct {
	// Dir is the directory holding trust.json. "" means
	// os.UserConfigDir()/ocfetch. Only tests and embedders set it: no
	// environment variable does.
	Dir string
	// Now returns the time an entry records. nil means time.Now.
	Now func() time.Time
	// IgnoreBirthTime makes [Store.Trust] record a marker (see the
	// package documentation) even where the file system records birth
	// times, as it does where none exist. Tests set it to exercise that
	// fallback; checking an entry follows what the entry recorded, not
	// this option.
	IgnoreBirthTime bool
}

// Store is the trust store. Its methods read the file on every call; it
// is safe for concurrent use by goroutines and processes.
type Store struct {
	dir     rootfile.Dir
	path    string // trust.json in dir
	now     func() time.Time
	noBirth bool
	// pin is the root the operator trusts for this process ([Store.Pin]),
	// nil when none.
	pin *pin
	// same compares entry keys; nil is the platform's samePath (a test
	// stands in macOS's or Windows's comparison on Linux).
	same func(a, b string) bool
}

// samePathFn is the comparison of entry keys ([Store.same]).
func (s *Store) samePathFn() func(a, b string) bool {
	if s.same != nil {
		return s.same
	}
	return samePath
}

// Open returns the store in opts.Dir (default os.UserConfigDir()/ocfetch).
// It does not read or create the file; it fails only when no directory can
// be determined.
func Open(opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Dir == "" {
		d, err := rootfile.UserDir()
		if err != nil {
			return nil, refusal.Newf(refusal.WorkspaceUntrusted, "trust store: %v", err).
				WithHint("set HOME (or, on Windows, AppData) so that ocfetch can find your configuration directory").Wrap(err)
		}
		o.Dir = d
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	abs, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("trust store %s: %w", o.Dir, err)
	}
	d := rootfile.Dir{Path: abs}
	return &Store{dir: d, path: d.Join(FileName), now: o.Now, noBirth: o.IgnoreBirthTime}, nil
}

// Path returns the path of trust.json.
func (s *Store) Path() string { return s.path }

// Details say how a workspace came to be trusted, for `ocfetch trust
// --list`: "ocfetch trust", or the command that created its .oc_chat/.
type Details struct {
	How string
}

// Entry is one trusted workspace.
type Entry struct {
	// Path is the workspace's real path (absolute, symlinks resolved).
	Path string
	// ID is the directory's identity when it was trusted ("" if the
	// platform has none): see the package documentation.
	ID string
	// Incarnation tells the directory trusted from another one made at
	// the same path later, even with the same ID (a reused inode):
	// "birth:" and the file system's birth time (with the file ID on
	// Windows), or "marker:" and the SHA-256 of the marker file ocfetch
	// wrote into the workspace's .oc_chat/ where there is no birth time.
	// "" for an entry an older ocfetch wrote: it trusts nothing (see
	// [Entry.Outdated]).
	Incarnation string
	TrustedAt   time.Time
	How         string
}

// State is what is at an entry's path now.
type State string

// The states of an entry.
const (
	// Present: the trusted directory is at its path.
	Present State = "present"
	// Missing: nothing (or no directory) is at the path: the workspace
	// was moved, renamed or deleted.
	Missing State = "missing"
	// Replaced: another directory is at the path — one deleted and made
	// again, or another clone — even if it reuses the inode; it is not
	// trusted.
	Replaced State = "replaced"
)

// State reports what is at e.Path now: one stat of the directory (statx on
// Linux), and, for an entry that recorded a marker, one read of the
// marker file.
func (e Entry) State() State { return e.state(e.Path) }

// Outdated reports whether e was written by an older ocfetch, which did
// not record the directory's incarnation: it trusts nothing — its
// directory cannot be told from another one that reuses its inode — until
// the workspace is trusted again.
func (e Entry) Outdated() bool { return e.Incarnation == "" }

// Status is what the store says about one workspace root now.
type Status struct {
	// Found: the store has an entry for the root's real path, Entry.
	Found bool
	Entry Entry
	// State compares the directory at the path with the entry (when
	// Found).
	State State
	// Pinned: the root is the one [Store.Pin] names, trusted for this
	// process by the operator's flag (Entry.How says which), not by an
	// entry of the store.
	Pinned bool
}

// Trusted reports whether st trusts the workspace: its entry's directory
// is the one at the path, and the entry says which incarnation it was.
func (st Status) Trusted() bool {
	return st.Found && st.State == Present && (st.Pinned || !st.Entry.Outdated())
}

// Key returns the key a workspace root is stored under: its absolute path
// with symlinks resolved. The root must exist.
func Key(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", abs, err)
	}
	return filepath.Clean(real), nil
}

// List returns the trusted workspaces, sorted by path. A missing store is
// an empty list. A store that cannot be read or is malformed is an
// *refusal.Error (workspace_untrusted) naming the file: every workspace is
// then untrusted — fail closed — until it is fixed or removed.
//
// The file is checked on every call and read again whenever it changed
// (see [securefile.Cache]): an edit, or a deletion, is seen by the next call.
func (s *Store) List() ([]Entry, error) {
	entries, err := s.list()
	return slices.Clone(entries), err
}

// list is List without the copy: the entries are shared and not to be
// modified.
func (s *Store) list() ([]Entry, error) {
	return stores.Load(s.Path())
}

// stores holds the last parse of each trust.json read.
var stores = securefile.NewCache(MaxFileSize, 16, decodeStore)

func decodeStore(path string, data []byte, _ fs.FileInfo, err error) ([]Entry, error) {
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, invalid(path, "%v", err).Wrap(err)
	}
	entries, err := Parse(data)
	if err != nil {
		return nil, invalid(path, "%s: %v", path, err).Wrap(err)
	}
	return entries, nil
}

func (s *Store) invalid(format string, args ...any) *refusal.Error {
	return invalid(s.Path(), format, args...)
}

func invalid(path, format string, args ...any) *refusal.Error {
	return refusal.Newf(refusal.WorkspaceUntrusted, "trust store "+format+"; no workspace is trusted until it is fixed", args...).
		WithHints("fix or delete "+path+" (deleting it untrusts every workspace; `ocfetch trust --root DIR` trusts one again)",
			refusal.AskUserToRun("ocfetch trust --root DIR")+" once they have fixed or deleted "+path+" (deleting it untrusts every workspace)")
}

// Status returns the entry for root's real path, if any, and how the
// directory there compares with it: the same incarnation (trusted), or
// another directory (replaced), or an entry that recorded none
// (outdated). A root that does not exist has no entry. It reads the store
// and stats the directory once (plus the marker file, for an entry that
// recorded one) on every call.
func (s *Store) Status(root string) (Status, error) { return s.status(nil, root) }

// StatusContext is [Store.Status] within the call ctx carries
// ([securefile.WithCall]): the store is checked once per call, its
// directory's check shared with the user's rules file.
func (s *Store) StatusContext(ctx context.Context, root string) (Status, error) {
	return s.status(securefile.CallFrom(ctx), root)
}

func (s *Store) status(call *securefile.Call, root string) (Status, error) {
	if st, ok := s.pinned(call, root); ok {
		return st, nil
	}
	entries, err := stores.LoadIn(call, s.Path())
	if err != nil {
		return Status{}, err
	}
	key, now, err, idErr := resolve(call, root)
	if err != nil {
		return Status{}, nil
	}
	// Another spelling's entry is key's only where it reaches key's
	// directory (sameDirectory): not another directory's beside it.
	same := s.samePathFn()
	if e, ok := entryFor(entries, key, func(p, key string) bool { return sameDirectory(p, key, same, now, idErr) }); ok {
		return Status{Found: true, Entry: e, State: e.stateOf(key, now, idErr)}, nil
	}
	return Status{}, nil
}

// entryFor returns the entry for key: the one spelled as key, else the
// first one same (the platform's samePath) says names the same path —
// another spelling of it on macOS or Windows, which an older ocfetch
// could record beside this one.
func entryFor(entries []Entry, key string, same func(a, b string) bool) (Entry, bool) {
	for _, e := range entries {
		if e.Path == key {
			return e, true
		}
	}
	for _, e := range entries {
		if same(e.Path, key) {
			return e, true
		}
	}
	return Entry{}, false
}

// sameDirectory reports whether the entry for the path p stands for the
// directory at key, whose identity is keyID (keyErr: none, nothing is
// there): p is key, or another spelling of it (same) that does not name
// another directory now. On a file system that ignores case every
// spelling reaches key's directory; on a case-sensitive one (a Mac's
// case-sensitive APFS volume) "Proj" beside "proj" is another directory,
// whose entry trusting or revoking "proj" must leave alone. A spelling
// that reaches nothing now stands for key.
func sameDirectory(p, key string, same func(a, b string) bool, keyID ident, keyErr error) bool {
	if p == key {
		return true
	}
	if !same(p, key) {
		return false
	}
	pid, err := identify(p)
	if err != nil {
		return true
	}
	return keyErr == nil && pid.id == keyID.id
}

// Lookup returns the entry trusting root, if root is trusted: an entry
// for its real path whose directory identity and incarnation match. A
// root that does not exist is not trusted.
func (s *Store) Lookup(root string) (Entry, bool, error) {
	st, err := s.Status(root)
	if err != nil || !st.Trusted() {
		return Entry{}, false, err
	}
	return st.Entry, true, nil
}

// Trusted reports whether the user trusts the workspace at root. It reads
// the store on every call. A malformed store is an error (and root is not
// trusted): fail closed. A directory deleted and made again at a trusted
// path, or an entry an older ocfetch wrote, is not trusted.
func (s *Store) Trusted(root string) (bool, error) {
	_, ok, err := s.Lookup(root)
	return ok && err == nil, err
}

// Trust records root (which must be an existing directory) as trusted,
// replacing an entry for the same real path, in any spelling of it
// ([sameDirectory]). The entry records the
// directory's incarnation: its birth time where the file system has one,
// else a fresh marker written into root's .oc_chat/ (created if missing,
// never through a symlink) under the store's lock. The cycle is locked and
// the file replaced atomically; a malformed store is refused and left
// alone.
func (s *Store) Trust(ctx context.Context, root string, d Details) error {
	key, err := Key(root)
	if err != nil {
		return err
	}
	fi, err := os.Stat(key)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", key, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("workspace %s is not a directory", key)
	}
	id, err := identify(key)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", key, err)
	}
	how := safetext.Short(d.How)
	if len(how) > maxHow {
		how = how[:maxHow]
	}
	e := Entry{Path: key, ID: id.id, TrustedAt: s.now().UTC().Truncate(time.Second), How: how}
	var marker []byte
	if id.birth != "" && !s.noBirth {
		e.Incarnation = birthPrefix + id.birth
	} else {
		marker, e.Incarnation = newMarker()
	}
	return s.update(ctx, func(entries []Entry) ([]Entry, error) {
		if marker != nil {
			// Under the lock: two processes trusting root at once leave
			// the marker of the entry that was saved last.
			if err := workspace.WriteFileAtomic(markerPath(key), marker, filePerm); err != nil {
				return nil, fmt.Errorf("workspace %s: write its trust marker: %w", key, err)
			}
		}
		same := s.samePathFn()
		entries = slices.DeleteFunc(entries, func(x Entry) bool { return sameDirectory(x.Path, key, same, id, nil) })
		return append(entries, e), nil
	})
}

// Revoke removes the entry for root and reports whether there was one:
// the entry in any spelling of root's path ([sameDirectory]), never that
// of another directory a looser comparison matches. root need not exist
// any more: a deleted workspace's entry is found by its absolute path
// (resolved through symlinks as far as they exist).
func (s *Store) Revoke(ctx context.Context, root string) (bool, error) {
	key, err := Key(root)
	if err != nil {
		abs, aerr := filepath.Abs(root)
		if aerr != nil {
			return false, err
		}
		key = filepath.Clean(abs)
	}
	removed := false
	err = s.update(ctx, func(entries []Entry) ([]Entry, error) {
		n := len(entries)
		same := s.samePathFn()
		id, idErr := identify(key)
		entries = slices.DeleteFunc(entries, func(x Entry) bool { return sameDirectory(x.Path, key, same, id, idErr) })
		removed = len(entries) != n
		return entries, nil
	})
	return removed, err
}

// update runs one locked read-modify-write cycle; it writes only when
// change altered the list.
func (s *Store) update(ctx context.Context, change func([]Entry) ([]Entry, error)) error {
	unlock, err := s.dir.Lock(ctx, FileName)
	if err != nil {
		return s.invalid("%s cannot be locked: %v", s.Path(), err).Wrap(err)
	}
	defer unlock()
	old, err := s.List()
	if err != nil {
		return err
	}
	entries, err := change(slices.Clone(old))
	if err != nil {
		return err
	}
	slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	if slices.EqualFunc(old, entries, sameEntry) {
		return nil
	}
	if err := s.dir.WriteAtomic(FileName, Encode(entries), filePerm); err != nil {
		return fmt.Errorf("trust store: save: %w", err)
	}
	return nil
}

// storeJSON is trust.json's structure: depth 3 (object, array, entry).
var storeJSON = strictjson.Walker{
	MaxDepth: 3,
	Keys:     []string{"schema_version", "workspaces", "path", "id", "incarnation", "trusted_at", "how"},
}

// Parse reads a trust.json document strictly: valid UTF-8 JSON, one
// object, no duplicate or unknown keys, "schema_version": 1, a
// "workspaces" array of objects each with an absolute, clean "path"
// (listed once), a string "id", an RFC 3339 "trusted_at", a string "how"
// and, optionally, an "incarnation" ("birth:…" or "marker:…"; an entry
// without one was written by an older ocfetch, and is read but trusts
// nothing). Anything else is an error saying what is wrong; nothing is
// accepted in part.
func Parse(data []byte) ([]Entry, error) {
	var (
		version  bool
		haveWS   bool
		entries  []Entry
		cur      *Entry
		seen     = map[string]bool{}
		fields   int // the required fields read, of the current entry
		finished = func() error {
			if cur == nil {
				return nil
			}
			if fields != 4 {
				return fmt.Errorf("workspace %d: want \"path\", \"id\", \"trusted_at\" and \"how\"", len(entries))
			}
			return nil
		}
	)
	err := storeJSON.Walk(data, func(p strictjson.Path, v strictjson.Value) error {
		switch len(p) {
		case 0:
			if v.Kind != strictjson.Object {
				return fmt.Errorf("the top level is %s; want an object", v.Kind)
			}
		case 1:
			switch p[0].Key {
			case "schema_version":
				if _, ok := strictjson.Int(v.Raw, SchemaVersion, SchemaVersion); v.Kind != strictjson.Number || !ok {
					return fmt.Errorf("schema_version %s is not supported; want %d", safetext.Short(strictjson.Describe(v)), SchemaVersion)
				}
				version = true
			case "workspaces":
				if v.Kind != strictjson.Array {
					return fmt.Errorf("workspaces is %s; want an array", v.Kind)
				}
				haveWS = true
			default:
				return fmt.Errorf("%q does not belong at the top level", p[0].Key)
			}
		case 2:
			if p[0].Key != "workspaces" {
				return fmt.Errorf("%s: unexpected member", p)
			}
			if err := finished(); err != nil {
				return err
			}
			if v.Kind != strictjson.Object {
				return fmt.Errorf("workspace %d is %s; want an object", p[1].Index+1, v.Kind)
			}
			entries = append(entries, Entry{})
			cur, fields = &entries[len(entries)-1], 0
		case 3:
			if p[0].Key != "workspaces" || cur == nil {
				return fmt.Errorf("%s: unexpected member", p)
			}
			n := p[1].Index + 1
			if v.Kind != strictjson.String {
				return fmt.Errorf("workspace %d: %s is %s; want a string", n, p[2].Key, v.Kind)
			}
			s := v.Text()
			switch p[2].Key {
			case "path":
				if !filepath.IsAbs(s) || filepath.Clean(s) != s {
					return fmt.Errorf("workspace %d: path %q is not an absolute, clean path", n, safetext.Short(s))
				}
				if seen[s] {
					return fmt.Errorf("workspace %d: path %q is listed twice", n, safetext.Short(s))
				}
				seen[s] = true
				cur.Path = s
			case "id":
				cur.ID = s
			case "incarnation":
				if !validIncarnation(s) {
					return fmt.Errorf("workspace %d: incarnation %q is not one ocfetch writes", n, safetext.Short(s))
				}
				cur.Incarnation = s
				return nil // optional: not counted
			case "trusted_at":
				t, err := time.Parse(time.RFC3339, s)
				if err != nil {
					return fmt.Errorf("workspace %d: trusted_at %q is not an RFC 3339 time", n, safetext.Short(s))
				}
				cur.TrustedAt = t
			case "how":
				if len(s) > maxHow {
					return fmt.Errorf("workspace %d: how is longer than %d bytes", n, maxHow)
				}
				cur.How = s
			default:
				return fmt.Errorf("workspace %d: %q does not belong in a workspace", n, p[2].Key)
			}
			fields++
		default:
			return fmt.Errorf("%s: nested too deeply", p)
		}
		return nil
	})
	if err == nil {
		err = finished()
	}
	if err != nil {
		var se *strictjson.Error
		if errors.As(err, &se) && se.Err == strictjson.ErrUnknownKey {
			return nil, fmt.Errorf("unknown field %q", safetext.Short(se.Key))
		}
		return nil, err
	}
	switch {
	case !version:
		return nil, fmt.Errorf("schema_version is missing; want %d", SchemaVersion)
	case !haveWS:
		return nil, errors.New("workspaces is missing (want an array, [] for none)")
	}
	if entries == nil {
		entries = []Entry{}
	}
	return entries, nil
}

// Encode renders entries as trust.json: one workspace a line, a trailing
// newline; an entry without an incarnation is written as an older ocfetch
// wrote it. Parse(Encode(e)) returns e (with times in UTC to the second).
func Encode(entries []Entry) []byte {
	q := strictjson.Quote
	return strictjson.EncodeList(SchemaVersion, "workspaces", entries, func(b *bytes.Buffer, e Entry) {
		fmt.Fprintf(b, "{\"path\": %s, \"id\": %s, ", q(e.Path), q(e.ID))
		if e.Incarnation != "" {
			fmt.Fprintf(b, "\"incarnation\": %s, ", q(e.Incarnation))
		}
		fmt.Fprintf(b, "\"trusted_at\": %s, \"how\": %s}", q(e.TrustedAt.UTC().Format(time.RFC3339Nano)), q(e.How))
	})
}

func sameEntry(a, b Entry) bool {
	return a.Path == b.Path && a.ID == b.ID && a.Incarnation == b.Incarnation && a.TrustedAt.Equal(b.TrustedAt) && a.How == b.How
}
