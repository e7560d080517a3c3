package mcpserver

//lint:file-ignore SA1019 MCP roots are deprecated by SEP-2577 (protocol 2026-07-28) but still functional, and DESIGN.md makes the client's first file:// root the workspace root.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/workspace"
)

// maxCachedSessions bounds the roots cache; sessions that end are not
// announced, so the cache forgets the oldest entries instead.
const maxCachedSessions = 256

// rootsCache remembers, per session, the workspace picked from the client's
// roots, until the client says its roots changed.
type rootsCache struct {
	mu    sync.Mutex
	m     map[*mcp.ServerSession]workspace.Workspace
	order []*mcp.ServerSession
}

func newRootsCache() *rootsCache {
	return &rootsCache{m: make(map[*mcp.ServerSession]workspace.Workspace)}
}

func (c *rootsCache) get(ss *mcp.ServerSession) (workspace.Workspace, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ws, ok := c.m[ss]
	return ws, ok
}

func (c *rootsCache) put(ss *mcp.ServerSession, ws workspace.Workspace) {
	if ss == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[ss]; !ok {
		if len(c.order) >= maxCachedSessions {
			delete(c.m, c.order[0])
			c.order = c.order[1:]
		}
		c.order = append(c.order, ss)
	}
	c.m[ss] = ws
}

// changed handles notifications/roots/list_changed: the next call of that
// session lists the roots again.
func (c *rootsCache) changed(_ context.Context, req *mcp.RootsListChangedRequest) {
	if req == nil || req.Session == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, req.Session)
}

// workspaceFor resolves the workspace root of one call, in ONE place: the
// --root flag; else the client's first file:// root when the client
// declares roots; else the current directory at startup. needRoots reports
// that, on the multi round-trip protocol, the roots must first be asked for.
// A client whose roots cannot be listed (other than one answering that it
// has no roots/list at all), or whose first file:// root is not a
// directory, gets a refusal rather than a silent fall back to another
// project's rules.
func (s *server) workspaceFor(ctx context.Context, c *call) (ws workspace.Workspace, needRoots bool, err error) {
	if s.fixed != nil {
		return *s.fixed, false, nil
	}
	if !c.caps.roots {
		return s.cwd, false, nil
	}
	if c.state != nil && c.state.Root != "" {
		ws, err := workspace.Resolve(c.state.Root)
		if err != nil {
			return ws, false, rootError(c.state.Root, err)
		}
		return ws, false, nil
	}
	if ws, ok := s.roots.get(c.session); ok {
		return ws, false, nil
	}
	var roots []*mcp.Root
	if c.multiRoundTrip {
		r, ok := c.inputResponse(inputRoots)
		if !ok {
			return ws, true, nil
		}
		lr, ok := r.(*mcp.ListRootsResult)
		if !ok {
			return ws, false, refusal.New(refusal.WorkspaceInvalid, "the client answered the roots request with something else").
				WithHint("ask the user to start ocfetch mcp with --root DIR")
		}
		roots = lr.Roots
	} else {
		lr, err := c.session.ListRoots(ctx, nil)
		var werr *jsonrpc.Error
		switch {
		case errors.As(err, &werr) && werr.Code == jsonrpc.CodeMethodNotFound:
			// Some clients declare roots but do not implement roots/list:
			// that is a client without roots.
			s.log.Debug("client declares roots but has no roots/list; using the current directory", "root", s.cwd.Root)
			s.roots.put(c.session, s.cwd)
			return s.cwd, false, nil
		case err != nil:
			s.log.Warn("client roots not listed", "err", err)
			return ws, false, refusal.New(refusal.WorkspaceInvalid, "the client declares roots but did not list them").
				WithHint("ask the user to start ocfetch mcp with --root DIR").Wrap(err)
		}
		roots = lr.Roots
	}
	ws, err = s.pickRoot(roots)
	if err != nil {
		return ws, false, err
	}
	s.roots.put(c.session, ws)
	s.log.Debug("workspace root from client roots", "root", ws.Root)
	return ws, false, nil
}

// pickRoot returns the workspace of the first file:// root, or the current
// directory when there is none. Roots of other schemes are skipped.
func (s *server) pickRoot(roots []*mcp.Root) (workspace.Workspace, error) {
	for _, r := range roots {
		if r == nil {
			continue
		}
		p, err := fileURLPath(r.URI)
		if errors.Is(err, errNotFileURL) {
			continue
		}
		if err != nil {
			return workspace.Workspace{}, refusal.Newf(refusal.WorkspaceInvalid, "the client's first file:// root cannot be used: %v", err).
				WithHint("ask the user to open a local folder in the client, or to start ocfetch mcp with --root DIR")
		}
		ws, err := workspace.Resolve(p)
		if err != nil {
			return ws, rootError(p, err)
		}
		return ws, nil
	}
	return s.cwd, nil
}

func rootError(root string, err error) error {
	return refusal.Newf(refusal.WorkspaceInvalid, "workspace root %s (the client's first file:// root) is not a usable directory", root).
		WithHint("ask the user to open an existing folder in the client, or to start ocfetch mcp with --root DIR").Wrap(err)
}

var errNotFileURL = errors.New("not a file:// URL")

// fileURLPath converts a file:// URI to an absolute local path. Only an
// empty host or "localhost" is accepted (a file URL naming another host is
// not local); the path must be absolute and is cleaned. On Windows the
// URL's path is a drive letter's ("file:///C:/Users/me/proj", or with the
// colon percent-encoded, as VS Code sends it): see [fileURLSlashPath].
func fileURLPath(uri string) (string, error) {
	p, err := fileURLSlashPath(uri, runtime.GOOS == "windows")
	if err != nil {
		return "", err
	}
	return filepath.FromSlash(p), nil
}

// fileURLSlashPath is [fileURLPath] with slashes, for Windows's rules
// when windows is set: the URL's path "/C:/…" (or "/C:") is the drive's
// path "C:/…", and a path without a drive letter, not absolute there, is
// refused.
func fileURLSlashPath(uri string, windows bool) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		if strings.HasPrefix(strings.ToLower(uri), "file:") {
			return "", fmt.Errorf("root URI is malformed")
		}
		return "", errNotFileURL
	}
	if !strings.EqualFold(u.Scheme, "file") {
		return "", errNotFileURL
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", fmt.Errorf("file URL names host %q, not this machine", u.Hostname())
	}
	if u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
		return "", fmt.Errorf("file URL path is not absolute")
	}
	if strings.ContainsRune(u.Path, 0) {
		return "", fmt.Errorf("file URL path contains NUL")
	}
	if !windows {
		return path.Clean(u.Path), nil
	}
	p := u.Path[1:] // "C:/…"
	if len(p) < 2 || p[1] != ':' || !('a' <= p[0]|0x20 && p[0]|0x20 <= 'z') || (len(p) > 2 && p[2] != '/') {
		return "", fmt.Errorf("file URL path does not start with a drive letter (file:///C:/…)")
	}
	return p[:2] + path.Clean("/"+p[2:]), nil
}
