package download

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Bar draws one line on a terminal, redrawn in place, for a body
// larger than threshold (known from Content-Length, or seen while
// reading): a bar and percentage when the length is known, the bytes so
// far, the rate, and the time left (or, at the end, the time taken).
//
// Every redraw is "\r", the line, then "erase to the end of the line", so a
// shorter line never leaves characters of a longer one behind; the line is
// cut to fit the terminal's width less one column, so it never wraps
// (dropping, as the terminal narrows, the time, then the rate, then the
// bar).
type Bar struct {
	w         io.Writer
	threshold int64
	width     func() int // the terminal's columns; ≤ 0 when unknown (80 is assumed)
	total     int64      // -1 when unknown
	done      int64
	shown     bool
	began     time.Time
	last      time.Time
	now       func() time.Time
}

// NewBar returns a bar drawing on w, once a body passes threshold bytes.
// width reports the terminal's columns at each redraw (a resized terminal
// is followed); nil means 80. A nil *Bar draws nothing.
func NewBar(w io.Writer, threshold int64, width func() int) *Bar {
	return &Bar{w: w, threshold: threshold, width: width, total: -1, now: time.Now}
}

// redrawEvery limits redraws, so a fast download is not slowed by them.
const redrawEvery = 100 * time.Millisecond

// eraseLine is the terminal's "erase from the cursor to the end of the line".
const eraseLine = "\033[K"

func (b *Bar) start(total int64) {
	if b == nil {
		return
	}
	if b.shown {
		fmt.Fprint(b.w, "\r"+eraseLine)
	}
	b.total, b.done, b.shown = total, 0, false
	b.began = b.now()
}

func (b *Bar) add(n int) {
	if b == nil {
		return
	}
	b.done += int64(n)
	if b.total <= b.threshold && b.done <= b.threshold {
		return
	}
	if now := b.now(); !b.shown || now.Sub(b.last) >= redrawEvery {
		b.last = now
		b.draw(false)
	}
}

// Finish draws the final state and ends the line, if a bar was shown:
// call it once the body is read, before anything else is written to the
// terminal.
func (b *Bar) Finish() {
	if b == nil || !b.shown {
		return
	}
	b.draw(true)
	fmt.Fprintln(b.w)
}

func (b *Bar) draw(final bool) {
	b.shown = true
	cols := 0
	if b.width != nil {
		cols = b.width()
	}
	if cols <= 0 {
		cols = 80
	}
	fmt.Fprint(b.w, "\r"+b.line(cols, b.now().Sub(b.began), final)+eraseLine)
}

// line is the bar's text for a terminal of cols columns after elapsed: at
// most cols-1 characters (the last column is never written, so the
// terminal never wraps), all of them single-column ASCII.
func (b *Bar) line(cols int, elapsed time.Duration, final bool) string {
	avail := max(cols-1, 1)
	// Numbers are right-aligned in fields of their widest usual width, so
	// the line neither jitters nor changes length from one redraw to the
	// next, and the bar keeps its width.
	size := fmt.Sprintf("%10s", sizeString(b.done))
	var pct string
	if b.total > 0 {
		size += " / " + sizeString(b.total)
		pct = fmt.Sprintf("%3.0f%%", min(float64(b.done)/float64(b.total), 1)*100)
	}
	var rate, clock string
	if secs := elapsed.Seconds(); secs > 0 {
		bps := float64(b.done) / secs
		rate = fmt.Sprintf("%12s", sizeString(int64(bps))+"/s")
		switch {
		case final:
			clock = fmt.Sprintf("%10s", "in "+clockString(elapsed))
		case b.total > b.done && bps > 0:
			clock = fmt.Sprintf("%10s", clockString(time.Duration(float64(b.total-b.done)/bps*float64(time.Second)))+" left")
		}
	}
	// As the terminal narrows: drop the time, then the rate, then the bar
	// (it needs 10 columns), then the percentage and the padding, then the
	// total.
	withBar := [][]string{{pct, size, rate, clock}, {pct, size, rate}, {pct, size}}
	if b.total > 0 {
		for _, fields := range withBar {
			text := join(fields)
			if barWidth := min(avail-len(text)-3, 40); barWidth >= 10 {
				fill := int(min(float64(b.done)/float64(b.total), 1) * float64(barWidth))
				return "[" + strings.Repeat("=", fill) + strings.Repeat(" ", barWidth-fill) + "] " + text
			}
		}
	}
	for _, text := range []string{join(withBar[0]), join(withBar[1]), join(withBar[2]), strings.TrimSpace(size)} {
		if len(text) <= avail && text != "" {
			return text
		}
	}
	done := sizeString(b.done)
	return done[:min(len(done), avail)]
}

// join joins the non-empty fields with two spaces.
func join(fields []string) string {
	var out []string
	for _, f := range fields {
		if f != "" {
			out = append(out, f)
		}
	}
	return strings.Join(out, "  ")
}

// clockString is d as m:ss, or h:mm:ss from an hour on.
func clockString(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// sizeString is a byte count in B, KiB or MiB with one decimal.
func sizeString(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
