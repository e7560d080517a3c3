package proxy

import (
	"sync"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
)

// TestRefusalLineBeforeTheAnswer: a refusal by policy is told to
// Options.Refused (the line `ocfetch run` prints) before the client gets
// its answer, whichever step refused and whichever protocol asked, so
// that the line never lands inside what the client prints about the 403
// (curl writes its own message a byte at a time). The callback waits a
// little for the client to say it has its answer: if the answer went out
// first, the order seen is "answer" then "refusal line".
func TestRefusalLineBeforeTheAnswer(t *testing.T) {
	var (
		mu      sync.Mutex
		order   []string
		answers chan struct{}
	)
	w := newWorld(t, worldOpts{profile: risk.Permissive, tune: func(o *Options) {
		o.Refused = func(Refusal) {
			mu.Lock()
			got := answers
			mu.Unlock()
			select {
			case <-got:
			case <-time.After(300 * time.Millisecond):
			}
			mu.Lock()
			order = append(order, "refusal line")
			mu.Unlock()
		}
	}})
	w.rule(rules.Deny, deniedHost, 80)
	w.rule(rules.Allow, privateHost, 443)
	w.rule(rules.Allow, privateHost, 80)
	tests := []struct {
		name string
		ask  func()
	}{
		{"CONNECT, no rule", func() { w.raw(connectHead("uncovered.test:443")) }},
		{"CONNECT, a private address at the dial", func() { w.raw(connectHead(privateHost + ":443")) }},
		{"HTTP, a deny rule", func() {
			w.raw("GET http://" + deniedHost + "/ HTTP/1.1\r\nHost: " + deniedHost + "\r\n\r\n")
		}},
		{"HTTP, a private address at the dial", func() {
			w.raw("GET http://" + privateHost + "/ HTTP/1.1\r\nHost: " + privateHost + "\r\n\r\n")
		}},
		{"SOCKS5, no rule", func() { w.socksDial(nil, socksConnect("uncovered.test", 443)) }},
		{"SOCKS5, a private address at the dial", func() { w.socksDial(nil, socksConnect(privateHost, 443)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			order, answers = nil, make(chan struct{})
			mu.Unlock()
			tc.ask()
			mu.Lock()
			order = append(order, "answer")
			close(answers)
			mu.Unlock()
			deadline := time.Now().Add(5 * time.Second)
			for {
				mu.Lock()
				n := len(order)
				got := append([]string(nil), order...)
				mu.Unlock()
				if n == 2 {
					if got[0] != "refusal line" {
						t.Errorf("order %q; want the refusal line before the client's answer", got)
					}
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("order %q after 5 s; want a refusal line and an answer", got)
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
}
