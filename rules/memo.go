package rules

import (
	"bytes"
	"sync"

	"github.com/ocfetch/ocfetch/workspace"
)

// Memo spares the parse of rules.json when the file reads exactly as it
// did for the set it remembers. It is not a cache in time: the file is
// still read on every request, and a decision is always made from the set
// that the bytes read for this request parse to. Parsing is the larger part
// of the proxy's CPU per tunnel (strict JSON, every host normalised), and
// rules.json rarely changes between two tunnels. Its Load is a
// policy.Args.LoadRules: the decision calls into rules, never up into a
// front end. The zero Memo is ready; it is safe for concurrent use.
type Memo struct {
	mu   sync.Mutex
	data []byte
	set  *Set
}

// Load returns the rule set of ws's rules.json as rules.Load would for the
// bytes read now. Whenever the bytes differ from the remembered ones, or the
// file cannot be read as a small regular file (missing, a symlink to
// nothing, too large, a FIFO: rules.Load decides what that means), it is
// rules.Load that reads and parses. Its result is remembered only when the
// file read the same before and after it, so the set is the parse of the
// bytes it is remembered for. (A file that changed and changed back within
// that window could pair the bytes with the set of the transient content;
// whoever can write rules.json can write that content for good, so this
// grants nothing.)
func (m *Memo) Load(ws workspace.Workspace) (*Set, error) {
	path := ws.RulesPath()
	before, err := workspace.ReadSmallFile(path)
	if err != nil {
		return Load(ws)
	}
	m.mu.Lock()
	if m.set != nil && bytes.Equal(before, m.data) {
		set := m.set
		m.mu.Unlock()
		return set, nil
	}
	m.mu.Unlock()
	set, err := Load(ws)
	if err != nil {
		return nil, err
	}
	if after, err := workspace.ReadSmallFile(path); err == nil && bytes.Equal(before, after) {
		m.mu.Lock()
		m.data, m.set = before, set
		m.mu.Unlock()
	}
	return set, nil
}
