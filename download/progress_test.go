package download

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/internal/testsupport/termscreen"
)

// TestProgressBarLeavesNothingBehind draws downloads through every size
// unit (the text shrinks from "1023.9 KiB" to "1.0 MiB") on terminals from
// 10 to 200 columns and checks what a user would see: the line never
// wraps, and at the end the screen holds exactly the final line, with no
// characters of an earlier, longer one left behind (issue 15:
// "1.7 MiB / 3.0 MiBiB").
func TestProgressBarLeavesNothingBehind(t *testing.T) {
	for _, cols := range []int{10, 20, 40, 41, 60, 80, 120, 200} {
		for _, total := range []int64{3 << 20, -1} {
			t.Run(fmt.Sprintf("%d columns, total %d", cols, total), func(t *testing.T) {
				var out bytes.Buffer
				clock := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
				b := NewBar(&out, 1<<20, func() int { return cols })
				b.now = func() time.Time { return clock }
				b.start(total)
				scr := termscreen.New(cols)
				// Chunks that grow, so the bar passes B, KiB and MiB, with
				// the clock moving between redraws.
				for _, n := range []int{900, 200, 1 << 19, 1<<20 - 1024, 1023, 1, 1 << 20, 1 << 19} {
					clock = clock.Add(150 * time.Millisecond)
					b.add(n)
					if l := b.line(cols, clock.Sub(b.began), false); len(l) > cols-1 {
						t.Fatalf("line %q is %d characters on a %d-column terminal", l, len(l), cols)
					}
				}
				clock = clock.Add(time.Second)
				b.Finish()
				scr.Feed(t, out.Bytes())
				if scr.Wrapped {
					t.Errorf("the bar wrapped on a %d-column terminal: %q", cols, out.String())
				}
				want := strings.TrimRight(b.line(cols, clock.Sub(b.began), true), " ")
				if got := scr.Lines(); len(got) != 1 || got[0] != want {
					t.Errorf("screen after the download = %q; want exactly [%q]\nraw: %q", got, want, out.String())
				}
				if !strings.Contains(want, "3.0 MiB") {
					t.Errorf("final line %q does not show the 3.0 MiB received", want)
				}
			})
		}
	}
}

func TestProgressBarLine(t *testing.T) {
	b := &Bar{total: 3 << 20, done: 1782579}
	tests := []struct {
		cols    int
		final   bool
		elapsed time.Duration
		want    string
	}{
		{120, false, 2 * time.Second, "[======================                  ]  57%     1.7 MiB / 3.0 MiB   870.4 KiB/s   0:02 left"},
		{80, false, 2 * time.Second, "[=============           ]  57%     1.7 MiB / 3.0 MiB   870.4 KiB/s   0:02 left"},
		{60, false, 2 * time.Second, "[=========       ]  57%     1.7 MiB / 3.0 MiB   870.4 KiB/s"},
		{40, false, 2 * time.Second, "[=====     ]  57%     1.7 MiB / 3.0 MiB"},
		{30, false, 2 * time.Second, " 57%     1.7 MiB / 3.0 MiB"},
		{20, false, 2 * time.Second, "1.7 MiB / 3.0 MiB"},
		{10, false, 2 * time.Second, "1.7 MiB"},
		{120, true, 65 * time.Minute, "[======================                  ]  57%     1.7 MiB / 3.0 MiB       457 B/s  in 1:05:00"},
	}
	for _, tc := range tests {
		if got := b.line(tc.cols, tc.elapsed, tc.final); got != tc.want {
			t.Errorf("line(%d columns, %v, final %v) =\n%q; want\n%q", tc.cols, tc.elapsed, tc.final, got, tc.want)
		}
	}
}
