package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ocfetch/ocfetch/robotscheck"
)

// progressThreshold is the body size above which `get -o` draws a progress
// bar on a terminal.
const progressThreshold = 1 << 20

// tapTransport sits between the fetch tool's client and the guarded
// transport (which keeps dialing: the egress guard is untouched) and sees
// the body bytes of each response as the tool reads them, after
// decompression: for `get -o` it copies them to the output file and draws
// the progress bar. Each new response (a redirect hop) starts the copy
// afresh, so the file ends up holding the final response's body.
type tapTransport struct {
	next http.RoundTripper
	sink *bodySink    // nil without -o
	bar  *progressBar // nil when no bar is drawn
}

func (t *tapTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if robotscheck.IsRobotsRequest(req) {
		return t.next.RoundTrip(req) // --respect-robots: not the call's body
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	t.sink.reset()
	redirect := resp.StatusCode >= 300 && resp.StatusCode < 400 && resp.Header.Get("Location") != ""
	if !redirect {
		t.bar.start(resp.ContentLength)
	}
	resp.Body = &tapBody{ReadCloser: resp.Body, sink: t.sink, bar: t.bar, quiet: redirect}
	return resp, nil
}

type tapBody struct {
	io.ReadCloser
	sink  *bodySink
	bar   *progressBar
	quiet bool
}

func (b *tapBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.sink.write(p[:n])
		if !b.quiet {
			b.bar.add(n)
		}
	}
	return n, err
}

// bodySink collects a response body in a temporary file next to the
// destination and renames it into place only when the call delivered a
// whole body, so a refused or failed call leaves no file behind.
type bodySink struct {
	path string
	tmp  *os.File
	err  error // the first write error; reported by commit
	done bool
}

// newBodySink checks that path's directory exists, so a typo fails before
// any request; the temporary file is created with the first response.
func newBodySink(path string) (*bodySink, error) {
	if path == "-" {
		return nil, usageErrorf("to print the body, use --format raw without -o", "-o - is not supported")
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return nil, usageErrorf("-o FILE must be in an existing directory", "-o %s: directory %s does not exist", path, dir)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, usageErrorf("-o names the file to write", "-o %s is a directory", path)
	}
	return &bodySink{path: path}, nil
}

// reset starts a new body: the previous response (a redirect) is dropped.
func (s *bodySink) reset() {
	if s == nil || s.err != nil {
		return
	}
	if s.tmp == nil {
		s.tmp, s.err = os.CreateTemp(filepath.Dir(s.path), "."+filepath.Base(s.path)+".ocfetch-*")
		return
	}
	if err := s.tmp.Truncate(0); err != nil {
		s.err = err
		return
	}
	_, s.err = s.tmp.Seek(0, io.SeekStart)
}

func (s *bodySink) write(p []byte) {
	if s == nil || s.err != nil || s.tmp == nil {
		return
	}
	_, s.err = s.tmp.Write(p)
}

// commit keeps the first n bytes (the tool reads one byte past its cap to
// see whether the body is longer) and renames the file into place.
func (s *bodySink) commit(n int64) error {
	if s.err != nil {
		return internalErrorf("write %s: %v", s.path, s.err)
	}
	if s.tmp == nil { // no response body at all
		var err error
		if s.tmp, err = os.CreateTemp(filepath.Dir(s.path), "."+filepath.Base(s.path)+".ocfetch-*"); err != nil {
			return internalErrorf("write %s: %v", s.path, err)
		}
	}
	if err := s.tmp.Truncate(n); err != nil {
		return internalErrorf("write %s: %v", s.path, err)
	}
	if err := s.tmp.Sync(); err != nil {
		return internalErrorf("write %s: %v", s.path, err)
	}
	if err := s.tmp.Close(); err != nil {
		return internalErrorf("write %s: %v", s.path, err)
	}
	if err := os.Chmod(s.tmp.Name(), 0o644); err != nil {
		return internalErrorf("write %s: %v", s.path, err)
	}
	if err := os.Rename(s.tmp.Name(), s.path); err != nil {
		return internalErrorf("write %s: %v", s.path, err)
	}
	s.done = true
	return nil
}

// discard removes the temporary file unless commit renamed it.
func (s *bodySink) discard() {
	if s == nil || s.done || s.tmp == nil {
		return
	}
	s.tmp.Close()
	os.Remove(s.tmp.Name())
}

// progressBar draws one line on a terminal, redrawn in place, for a body
// larger than threshold (known from Content-Length, or seen while
// reading): a bar and percentage when the length is known, the bytes so
// far, the rate, and the time left (or, at the end, the time taken).
//
// Every redraw is "\r", the line, then "erase to the end of the line", so a
// shorter line never leaves characters of a longer one behind; the line is
// cut to fit the terminal's width less one column, so it never wraps
// (dropping, as the terminal narrows, the time, then the rate, then the
// bar).
type progressBar struct {
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

// newProgressBar returns a bar drawing on w. width reports the terminal's
// columns at each redraw (a resized terminal is followed); nil means 80.
func newProgressBar(w io.Writer, threshold int64, width func() int) *progressBar {
	return &progressBar{w: w, threshold: threshold, width: width, total: -1, now: time.Now}
}

// redrawEvery limits redraws, so a fast download is not slowed by them.
const redrawEvery = 100 * time.Millisecond

// eraseLine is the terminal's "erase from the cursor to the end of the line".
const eraseLine = "\033[K"

func (b *progressBar) start(total int64) {
	if b == nil {
		return
	}
	if b.shown {
		fmt.Fprint(b.w, "\r"+eraseLine)
	}
	b.total, b.done, b.shown = total, 0, false
	b.began = b.now()
}

func (b *progressBar) add(n int) {
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

// finish draws the final state and ends the line, if a bar was shown.
func (b *progressBar) finish() {
	if b == nil || !b.shown {
		return
	}
	b.draw(true)
	fmt.Fprintln(b.w)
}

func (b *progressBar) draw(final bool) {
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
func (b *progressBar) line(cols int, elapsed time.Duration, final bool) string {
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
