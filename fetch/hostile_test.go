package fetch

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/internal/testsupport/hostile"
	"github.com/ocfetch/ocfetch/refusal"
)

// TestHostileServers: each hostile server gives its named outcome within
// the bounds, and (newHarness) no goroutine outlives the call.
func TestHostileServers(t *testing.T) {
	const limit = 64 << 10
	bomb := hostile.GzipBombBytes(1 << 20)
	if len(bomb) > 2<<10 {
		t.Fatalf("gzip bomb is %d bytes on the wire; want about 1 KiB", len(bomb))
	}
	tests := []struct {
		name    string
		handler http.Handler
		timeout time.Duration
		// a delivered, body-truncated result, or an error code
		wantCut  bool
		wantCode refusal.Code
	}{
		{name: "endless body", handler: hostile.EndlessBody(), wantCut: true},
		{name: "gzip bomb", handler: hostile.GzipBomb(1 << 20), wantCut: true},
		{name: "declared larger than the cap", handler: hostile.Page("text/plain", bytes.Repeat([]byte("p"), 4*limit)), wantCut: true},
		{name: "trickle", handler: hostile.Trickle(time.Second), timeout: 300 * time.Millisecond, wantCode: refusal.Timeout},
		{name: "header flood", handler: hostile.HeaderFlood(1000, 100), wantCode: refusal.ResponseHeadersTooLarge},
		{name: "reset mid body", handler: hostile.ResetMidBody(1<<20, 4096), wantCode: refusal.ConnectionFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, &Options{MaxBodyBytes: limit, Timeout: tc.timeout})
			base, _ := h.serve(tc.handler)
			start := time.Now()
			res := call(context.Background(), h.f, `{"url": "`+base+`/", "format": "raw", "max_length": 100}`)
			elapsed := time.Since(start)
			if tc.wantCode != "" {
				wantError(t, res, tc.wantCode)
			} else {
				out := output(t, res)
				if out.BodyTruncated != tc.wantCut || out.Bytes != limit || len(out.Notes) == 0 || !strings.Contains(res.Content, "body cut at") {
					t.Errorf("body_truncated %v bytes %d notes %q; want %v, %d and a note in the content", out.BodyTruncated, out.Bytes, out.Notes, tc.wantCut, limit)
				}
				if res.Bytes != limit {
					t.Errorf("Result.Bytes %d; want %d", res.Bytes, limit)
				}
			}
			if elapsed > 5*time.Second {
				t.Errorf("call took %v; the bounds should end it far sooner", elapsed)
			}
		})
	}
}
