package mcpserver

import (
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConcurrentInitializesKeepTheCap: initializes that arrive together
// cannot take the session count past MaxSessions. An initialize in flight
// holds a place until its session exists; a newcomer beyond the cap, with
// no idle session to close, is refused 503 as when every open session is
// busy. Before, each initialize counted only the sessions already open,
// so n at once all went ahead.
func TestConcurrentInitializesKeepTheCap(t *testing.T) {
	const max, n = 2, 6
	entered := make(chan struct{}, n)
	release := make(chan struct{})
	// The SDK stand-in: it holds every initialize until released, so all
	// of them are in flight together, and opens no session.
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
		w.WriteHeader(http.StatusOK)
	})
	f := &httpFront{next: next, token: testToken, maxSessions: max,
		sessions: func() iter.Seq[*mcp.ServerSession] { return func(func(*mcp.ServerSession) bool) {} },
		posts:    map[string]*postEntry{}, activity: map[string]*sessionUse{}}

	codes := make(chan int, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:9/", strings.NewReader(`{}`))
			r.Header.Set("Authorization", "Bearer "+testToken)
			w := httptest.NewRecorder()
			f.ServeHTTP(w, r)
			codes <- w.Code
		}()
	}
	// Every request either reached the SDK or was refused; then let the
	// ones that reached it finish.
	admitted, refused := 0, 0
	timeout := time.After(10 * time.Second)
	for admitted+refused < n {
		select {
		case <-entered:
			admitted++
		case code := <-codes:
			if code != http.StatusServiceUnavailable {
				t.Fatalf("a refused initialize got %d; want 503", code)
			}
			refused++
		case <-timeout:
			t.Fatalf("after 10 s: %d admitted, %d refused of %d", admitted, refused, n)
		}
	}
	close(release)
	wg.Wait()
	if admitted != max || refused != n-max {
		t.Errorf("%d initializes at once, cap %d: %d reached the SDK, %d refused; want %d and %d", n, max, admitted, refused, max, n-max)
	}
	// The places are given back when the initializes end.
	f.mu.Lock()
	pending := f.initializing
	f.mu.Unlock()
	if pending != 0 {
		t.Errorf("after every initialize ended: %d places still held; want 0", pending)
	}
}

// TestMakeRoomKeepsASessionOpenedMeanwhile: a session whose initialize
// ends while makeRoom lists the open sessions (the list taken before it
// existed) keeps its use: were it forgotten, it could never be closed as
// idle, and would hold a place under --max-sessions until it timed out.
func TestMakeRoomKeepsASessionOpenedMeanwhile(t *testing.T) {
	f := &httpFront{token: testToken, maxSessions: 4,
		posts: map[string]*postEntry{}, activity: map[string]*sessionUse{}}
	f.initializing = 1 // the initialize that opens "s1", in flight
	f.sessions = func() iter.Seq[*mcp.ServerSession] {
		return func(func(*mcp.ServerSession) bool) {
			// The list is taken; meanwhile the initialize ends and its
			// session is tracked.
			f.initialized("s1")
		}
	}
	if !f.makeRoom() {
		t.Fatal("makeRoom refused a place below the cap")
	}
	f.mu.Lock()
	_, tracked := f.activity["s1"]
	f.mu.Unlock()
	if !tracked {
		t.Error("the session opened while makeRoom listed the sessions is no longer tracked")
	}
}
