package mcpserver

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/broker"
)

// TestPendingCalls: a kept call is taken once, for its workspace only,
// until its state expires; the store stays within its bounds, the oldest
// going first.
func TestPendingCalls(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	pc := newPendingCalls()
	pc.now = func() time.Time { return now }
	p := &broker.Prepared{}

	pc.put("n1", "/ws", "{}", p)
	if got := pc.take("n1", "/other"); got != nil {
		t.Error("taken for another workspace; want nil")
	}
	pc.put("n2", "/ws", "{}", p)
	if got := pc.take("n2", "/ws"); got != p {
		t.Error("not taken for its workspace")
	}
	if got := pc.take("n2", "/ws"); got != nil {
		t.Error("taken twice; want once")
	}
	pc.put("n3", "/ws", "{}", p)
	now = now.Add(stateTTL)
	if got := pc.take("n3", "/ws"); got != nil {
		t.Error("taken after its state expired; want nil")
	}

	for i := range maxPendingCalls + 10 {
		pc.put(fmt.Sprint("c", i), "/ws", "{}", p)
	}
	if n := len(pc.m); n > maxPendingCalls {
		t.Errorf("%d calls kept; want at most %d", n, maxPendingCalls)
	}
	if pc.take("c0", "/ws") != nil || pc.take(fmt.Sprint("c", maxPendingCalls+9), "/ws") != p {
		t.Error("want the oldest gone and the newest kept")
	}
	for i := range 3 * maxPendingCalls { // taken at once: order does not grow
		pc.put(fmt.Sprint("t", i), "/ws", "{}", p)
		pc.take(fmt.Sprint("t", i), "/ws")
	}
	if n := len(pc.order); n > 2*maxPendingCalls+1 {
		t.Errorf("order holds %d nonces; want at most %d", n, 2*maxPendingCalls+1)
	}
	big := strings.Repeat("x", maxPendingBytes/4)
	for i := range 5 {
		pc.put(fmt.Sprint("b", i), "/ws", big, p)
	}
	if pc.bytes > maxPendingBytes {
		t.Errorf("%d bytes kept; want at most %d", pc.bytes, maxPendingBytes)
	}
	pc.put("huge", "/ws", strings.Repeat("x", maxPendingBytes), p)
	if pc.take("huge", "/ws") != nil {
		t.Error("a call larger than the store was kept")
	}
}
