package mcpserver

import (
	"crypto/rand"
	"encoding/base64"
	"iter"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultSessionTimeout is how long an MCP HTTP session may stay idle (no
// request from its client) before the server closes it and frees its
// memory, when [Options.SessionTimeout] is 0. A client that comes back
// after it gets 404 and starts a new session, as the protocol prescribes.
const DefaultSessionTimeout = 30 * time.Minute

// DefaultMaxSessions bounds the open MCP HTTP sessions when
// [Options.MaxSessions] is 0 (`ocfetch mcp --max-sessions`). One agent uses
// one session; at the bound a new session closes the least recently used
// idle one (see [httpFront]), and is refused with 503 only when every open
// session has a request in flight.
const DefaultMaxSessions = 256

// postHeader carries, from the HTTP front to the tool handler, the token of
// the POST that delivered a call (the SDK hands a call the headers of its
// POST). The front sets it itself; a client's own value is dropped.
const postHeader = "X-Ocfetch-Post"

const (
	sessionIDHeader = "Mcp-Session-Id"
)

// httpFront stands in front of the SDK's streamable HTTP handler. It
// authenticates every request (bearer token), refuses those of web pages
// (foreignRequest), bounds the open sessions,
// and tells a tool call when its client has gone:
// the POST that carried it ended before its answer (socket reset, client
// stopped reading), or the client closed the session (DELETE) while the
// call ran. The SDK alone would let such a call run to its end: a stateful
// session keeps a call's handler running after its stream is gone, and
// closing a session waits for its calls.
//
// Sessions cannot lock newcomers out. Clients that vanish without DELETE
// leave sessions open until the idle timeout (30 minutes by default); so
// at maxSessions a new session closes the least recently used idle one
// (no request of it in flight), whose client, if it ever comes back, gets
// 404 and starts a new session, as the MCP specification prescribes. Only
// when every open session has a request in flight (an initialize still
// in flight counts as a session) is a newcomer refused (503). An authenticated DELETE closes its session even when the SDK
// refused the request (a protocol version header it does not accept, an
// origin check): the client asked for the end of its session.
type httpFront struct {
	next        http.Handler
	token       string
	sessions    func() iter.Seq[*mcp.ServerSession]
	maxSessions int

	mu       sync.Mutex
	posts    map[string]*postEntry  // token → POST in flight
	activity map[string]*sessionUse // Mcp-Session-Id → its use
	clock    uint64                 // ticks on every touch: the order of use
	// initializing counts the places held by initializes in flight:
	// their sessions do not exist yet, but will.
	initializing int
}

// sessionUse is what the front knows of one session: when (clock) a
// request of it last started or ended, and how many are in flight (a POST,
// or a GET's event stream).
type sessionUse struct {
	last     uint64
	inFlight int
}

type postEntry struct {
	session string        // Mcp-Session-Id of the POST ("" before one exists)
	gone    chan struct{} // closed when the client has gone
	once    sync.Once
}

func (e *postEntry) close() { e.once.Do(func() { close(e.gone) }) }

func newHTTPFront(next http.Handler, ms *mcp.Server, token string, maxSessions int) *httpFront {
	if maxSessions <= 0 {
		maxSessions = DefaultMaxSessions
	}
	return &httpFront{next: next, token: token, sessions: ms.Sessions, maxSessions: maxSessions,
		posts: map[string]*postEntry{}, activity: map[string]*sessionUse{}}
}

// ServeHTTP refuses, with 401 and before anything else sees the request,
// a request without "Authorization: Bearer TOKEN".
func (f *httpFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !authorized(r, f.token) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="ocfetch mcp"`)
		// Close the connection with the answer: a client without the token
		// keeps no connection (and no file descriptor) of ours open.
		w.Header().Set("Connection", "close")
		http.Error(w, "unauthorized: send Authorization: Bearer TOKEN, the token of ocfetch mcp's token file", http.StatusUnauthorized)
		return
	}
	r.Header.Del(postHeader)
	// A request from a web page (a foreign Host: DNS rebinding; a foreign
	// Origin) is refused before it reaches a session or makes room for
	// one, whatever its method; a DELETE goes on to close its session (the
	// SDK refuses it then).
	if r.Method != http.MethodDelete {
		if msg := foreignRequest(r); msg != "" {
			http.Error(w, msg, http.StatusForbidden)
			return
		}
	}
	sid := r.Header.Get(sessionIDHeader)
	if sid == "" && r.Method == http.MethodPost {
		if !f.makeRoom() {
			w.Header().Set("Retry-After", "60")
			http.Error(w, "too many open MCP sessions, each with a request in flight; close one and try again", http.StatusServiceUnavailable)
			return
		}
		var opened string
		defer func() { f.initialized(opened) }() // even if the handler panics
		f.servePOST(w, r, "")
		opened = w.Header().Get(sessionIDHeader)
		return
	}
	if sid != "" {
		f.touch(sid, +1)
		defer f.touch(sid, -1)
	}
	switch r.Method {
	case http.MethodPost:
		f.servePOST(w, r, sid)
		return
	case http.MethodDelete:
		if sid != "" {
			f.sessionGone(sid)
			defer f.closeSession(sid)
		}
	}
	f.next.ServeHTTP(w, r)
}

// foreignRequest says why r comes from a web page rather than a client on
// this machine, or returns "": its Host is not a loopback name (DNS
// rebinding: the SDK's own check, made before anything else), or it is a
// cross-origin request (Sec-Fetch-Site, else an Origin other than the
// Host) of any method. net/http's cross-origin protection exempts GET,
// HEAD and OPTIONS, but the MCP specification requires an invalid Origin
// to get 403 on every request, and a GET opens a session's event stream.
func foreignRequest(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = strings.Trim(r.Host, "[]")
	}
	if ip, err := netip.ParseAddr(host); host != "localhost" && (err != nil || !ip.IsLoopback()) {
		return "forbidden: the Host header is not a loopback address"
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none":
		return ""
	case "":
	default:
		return "forbidden: cross-origin request"
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		if u, err := url.Parse(origin); err != nil || u.Host != r.Host {
			return "forbidden: cross-origin request"
		}
	}
	return ""
}

// touch records the session sid being created (delta 0), a request of
// it starting (+1) or ending (-1). Only sessions created through the front
// are tracked, so an Mcp-Session-Id a client invents adds nothing.
func (f *httpFront) touch(sid string, delta int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	u := f.activity[sid]
	if u == nil {
		if delta != 0 {
			return
		}
		u = &sessionUse{}
		f.activity[sid] = u
	}
	f.clock++
	u.last = f.clock
	u.inFlight += delta
}

// initialized gives back the place [httpFront.makeRoom] held for an
// initialize that has ended, and tracks the session it opened (sid; ""
// when it opened none).
func (f *httpFront) initialized(sid string) {
	f.mu.Lock()
	f.initializing--
	f.mu.Unlock()
	if sid != "" {
		f.touch(sid, 0)
	}
}

// makeRoom reports whether a new session may open, and if so holds a
// place for it until [httpFront.initialized]: the open sessions and the
// initializes in flight are below maxSessions, or at it once the least
// recently used idle session is closed. Counting the initializes in
// flight keeps concurrent ones from all seeing the same free place. (A
// session the SDK has just opened, its initialize not yet ended, counts
// twice for that moment: the cap errs on the side of holding.) It also
// forgets the use of sessions that have ended.
func (f *httpFront) makeRoom() bool {
	// A session touched after the list is taken (its initialize ended
	// meanwhile) is not in it, but has not ended: its use is kept.
	f.mu.Lock()
	listed := f.clock
	f.mu.Unlock()
	open := map[string]*mcp.ServerSession{}
	for ss := range f.sessions() {
		open[ss.ID()] = ss
	}
	f.mu.Lock()
	for id, u := range f.activity {
		if _, ok := open[id]; !ok && u.last <= listed {
			delete(f.activity, id)
		}
	}
	if len(open)+f.initializing < f.maxSessions {
		f.initializing++
		f.mu.Unlock()
		return true
	}
	var (
		victim *mcp.ServerSession
		oldest uint64
	)
	for id, ss := range open {
		// A session not yet tracked is one whose initialize is still in
		// flight: not idle.
		u := f.activity[id]
		if u == nil || u.inFlight > 0 {
			continue
		}
		if victim == nil || u.last < oldest {
			victim, oldest = ss, u.last
		}
	}
	if victim != nil {
		delete(f.activity, victim.ID())
		f.initializing++
	}
	f.mu.Unlock()
	if victim == nil {
		return false
	}
	victim.Close() // idle: no call of it runs, so this does not wait
	return true
}

// closeSession closes session sid if it is still open (the SDK refused
// its DELETE).
func (f *httpFront) closeSession(sid string) {
	for ss := range f.sessions() {
		if ss.ID() == sid {
			ss.Close()
		}
	}
	f.mu.Lock()
	delete(f.activity, sid)
	f.mu.Unlock()
}

// servePOST hands the POST to the SDK with a token a call can find its
// POST by. If the request's context is done when the SDK returns, the
// client went away before the answer: the POST's calls are told.
func (f *httpFront) servePOST(w http.ResponseWriter, r *http.Request, sid string) {
	var b [12]byte
	rand.Read(b[:]) // never fails (crypto/rand.Read)
	token := base64.RawURLEncoding.EncodeToString(b[:])
	e := &postEntry{session: sid, gone: make(chan struct{})}
	f.mu.Lock()
	f.posts[token] = e
	f.mu.Unlock()
	r.Header.Set(postHeader, token)
	defer func() {
		if r.Context().Err() != nil {
			e.close()
		}
		f.mu.Lock()
		delete(f.posts, token)
		f.mu.Unlock()
	}()
	f.next.ServeHTTP(w, r)
}

// sessionGone tells every call in flight in session sid that its client
// has gone.
func (f *httpFront) sessionGone(sid string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.posts {
		if e.session == sid {
			e.close()
		}
	}
}

// goneChan returns the channel closed when the client of the POST that
// carried req has gone; nil when the call did not come over HTTP.
func (f *httpFront) goneChan(req *mcp.CallToolRequest) <-chan struct{} {
	if f == nil || req.Extra == nil || req.Extra.Header == nil {
		return nil
	}
	token := req.Extra.Header.Get(postHeader)
	if token == "" {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.posts[token]; ok {
		return e.gone
	}
	return nil
}
