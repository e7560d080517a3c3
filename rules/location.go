package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ocfetch/ocfetch/internal/securefile"
	"io/fs"
	"path/filepath"

	"github.com/ocfetch/ocfetch/internal/rootfile"
	"github.com/ocfetch/ocfetch/refusal"
)

// Location is a rules.json outside a workspace — the user's
// (os.UserConfigDir()/ocfetch/rules.json, [UserLocation]) or any other a
// caller or a test names: the file Name directly in directory Dir. It is
// read and written through an os.Root opened at Dir, so a Name that is a
// symlink (and a symlinked lock file) is refused by name, never followed.
// The format, the checks and the guarantees are those of the workspace's
// file ([Load], [Add], [Remove]).
type Location struct {
	Dir  string
	Name string
}

// UserLocation returns the user's rule store, os.UserConfigDir()/ocfetch/
// rules.json: rules that hold in every workspace, trusted or not. Its place
// is the operating system's; no ocfetch variable moves it.
func UserLocation() (Location, error) {
	dir, err := rootfile.UserDir()
	if err != nil {
		return Location{}, err
	}
	return Location{Dir: dir, Name: "rules.json"}, nil
}

// Path returns the file's path, as messages name it.
func (l Location) Path() string {
	if p := l.file(); p != "" {
		return p
	}
	return rootfile.Dir{Path: l.Dir}.Join(l.Name)
}

// locationJoin is [Location.file]'s join, remembered apart from others.
var locationJoin = securefile.NewMemoJoin("rules.Location")

// file is the file's path when its name is a plain file name, else "";
// remembered ([securefile.Memo]): the path every call reads.
func (l Location) file() string {
	return securefile.Memo(locationJoin, l.Dir, l.Name, func() string {
		p, err := rootfile.Dir{Path: l.Dir}.File(l.Name)
		if err != nil {
			return ""
		}
		return p
	})
}

// LoadAt reads the rules file at l. A missing file (or directory) is an
// empty set; anything else that is not a well-formed schema 1 rules file —
// a symlink included — is a rules_invalid refusal naming the file, exactly
// as [Load] refuses a workspace's.
//
// The file is checked on every call and read again whenever it changed
// (see [securefile.Cache]).
func LoadAt(l Location) (*Set, error) { return loadAt(nil, l) }

// LoadAtContext is [LoadAt] within the call ctx carries
// ([securefile.WithCall]): checked once per call, the directory's check
// shared with the trust store's.
func LoadAtContext(ctx context.Context, l Location) (*Set, error) {
	return loadAt(securefile.CallFrom(ctx), l)
}

func loadAt(call *securefile.Call, l Location) (*Set, error) {
	path := l.file()
	if path == "" || !filepath.IsAbs(path) {
		data, err := rootfile.Dir{Path: l.Dir}.Read(l.Name, MaxFileSize)
		return decodeUserRules(l.Path(), data, nil, err)
	}
	return userRules.LoadIn(call, path)
}

func decodeUserRules(path string, data []byte, _ fs.FileInfo, err error) (*Set, error) {
	if errors.Is(err, fs.ErrNotExist) {
		return &Set{}, nil
	}
	if err != nil {
		return nil, refusal.Newf(refusal.RulesInvalid, "rules file %v", err).
			WithHint(fmt.Sprintf("make %s a regular file (not a symlink) of at most %d KiB, or remove it", path, MaxFileSize>>10)).Wrap(err)
	}
	return parse(path, data)
}

// AddAt is [Add] for the rules file at l.
func AddAt(ctx context.Context, l Location, r Rule) error {
	change, err := adding(r)
	if err != nil {
		return err
	}
	return updateAt(ctx, l, change)
}

// RemoveAt is [Remove] for the rules file at l.
func RemoveAt(ctx context.Context, l Location, host string, port uint16) (bool, error) {
	change, removed, err := removing(host, port)
	if err != nil {
		return false, err
	}
	err = updateAt(ctx, l, change)
	return *removed, err
}

// updateAt is one locked read-modify-write cycle of the file at l; it
// writes only if change altered the rules.
func updateAt(ctx context.Context, l Location, change func([]Rule) []Rule) error {
	d := rootfile.Dir{Path: l.Dir}
	unlock, err := d.Lock(ctx, l.Name)
	if err != nil {
		return refusal.Newf(refusal.RulesInvalid, "rules file %s cannot be locked: %v", l.Path(), err).Wrap(err)
	}
	defer unlock()
	set, err := LoadAt(l)
	if err != nil {
		return err
	}
	data, err := applyChange(l.Path(), set, change)
	if err != nil || data == nil {
		return err
	}
	if err := d.WriteAtomic(l.Name, data, filePerm); err != nil {
		return refusal.Newf(refusal.RulesInvalid, "rules file %v: nothing was saved", err).Wrap(err)
	}
	return nil
}

// DecodeRules decodes a JSON array of rules written as in rules.json, for
// a file that embeds them (the managed policy's "rules"). The caller has
// checked the document's syntax, duplicate and unknown keys (with the
// internal/strictjson Walker and the rule keys "capability", "target",
// "decision", "schema", "host", "port"); DecodeRules checks each rule's
// members, types and values as [Load] does and returns them normalised.
// Errors name the rule by its 1-based index.
func DecodeRules(data []byte) ([]Rule, error) {
	var frs []fileRule
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&frs); err != nil {
		return nil, errors.New(describeJSONError(err))
	}
	out := make([]Rule, 0, len(frs))
	for i, fr := range frs {
		r, err := fr.rule()
		if err == nil {
			r, _, err = normalize(r)
		}
		if err != nil {
			return nil, fmt.Errorf("rule %d: %w", i+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}
