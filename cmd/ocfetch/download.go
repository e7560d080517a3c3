package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
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

// progressBar draws one redrawn line on a terminal for a body larger than
// threshold (known from Content-Length, or seen while reading).
type progressBar struct {
	w         io.Writer
	threshold int64
	total     int64 // -1 when unknown
	done      int64
	shown     bool
	last      time.Time
	now       func() time.Time
}

func newProgressBar(w io.Writer, threshold int64) *progressBar {
	return &progressBar{w: w, threshold: threshold, total: -1, now: time.Now}
}

// redrawEvery limits redraws, so a fast download is not slowed by them.
const redrawEvery = 100 * time.Millisecond

func (b *progressBar) start(total int64) {
	if b == nil {
		return
	}
	if b.shown {
		fmt.Fprint(b.w, "\r\033[K")
	}
	b.total, b.done, b.shown = total, 0, false
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
		b.draw()
	}
}

// finish draws the final state and ends the line, if a bar was shown.
func (b *progressBar) finish() {
	if b == nil || !b.shown {
		return
	}
	b.draw()
	fmt.Fprintln(b.w)
}

func (b *progressBar) draw() {
	b.shown = true
	const width = 30
	if b.total > 0 {
		frac := min(float64(b.done)/float64(b.total), 1)
		fill := int(frac * width)
		bar := strings.Repeat("=", fill) + strings.Repeat(" ", width-fill)
		fmt.Fprintf(b.w, "\r[%s] %3.0f%%  %s / %s", bar, frac*100, sizeString(b.done), sizeString(b.total))
		return
	}
	fmt.Fprintf(b.w, "\r%s", sizeString(b.done))
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
