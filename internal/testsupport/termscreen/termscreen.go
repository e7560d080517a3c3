// Package termscreen is a tiny terminal emulator for tests of what a
// person sees: it keeps the screen's lines after a program's output, and
// fails the test at any control sequence it does not know.
package termscreen

import (
	"bytes"
	"strings"
	"testing"
)

// Screen is the little of a terminal the progress bar relies on: printable
// ASCII, "\r", "\n", and ESC [ K (erase to the end of the line), with
// auto-wrap at the last column. Anything else fails the test, so the bar
// cannot start using a control sequence nobody checked.
type Screen struct {
	cols     int
	rows     [][]byte
	row, col int
	// Wrapped is set once a character was written past the last column.
	Wrapped bool
}

// New returns an empty screen of cols columns.
func New(cols int) *Screen { return &Screen{cols: cols, rows: [][]byte{nil}} }

// Feed writes out to the screen, failing t at any byte the screen does
// not know.
func (s *Screen) Feed(t testing.TB, out []byte) {
	t.Helper()
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case c == '\r':
			s.col = 0
		case c == '\n':
			s.row, s.col = s.row+1, 0
			if s.row == len(s.rows) {
				s.rows = append(s.rows, nil)
			}
		case c == 0x1b:
			if !bytes.HasPrefix(out[i:], []byte("\x1b[K")) {
				t.Fatalf("unexpected escape sequence %q", out[i:min(i+6, len(out))])
			}
			if s.col < len(s.rows[s.row]) {
				s.rows[s.row] = s.rows[s.row][:s.col]
			}
			i += 2
		case c >= 0x20 && c < 0x7f:
			if s.col == s.cols {
				s.Wrapped = true
				s.row, s.col = s.row+1, 0
				if s.row == len(s.rows) {
					s.rows = append(s.rows, nil)
				}
			}
			line := s.rows[s.row]
			for len(line) <= s.col {
				line = append(line, ' ')
			}
			line[s.col] = c
			s.rows[s.row] = line
			s.col++
		default:
			t.Fatalf("unexpected byte %#x in the progress output", c)
		}
	}
}

// Lines returns the screen's non-empty lines, right-trimmed.
func (s *Screen) Lines() []string {
	var out []string
	for _, r := range s.rows {
		if l := strings.TrimRight(string(r), " "); l != "" {
			out = append(out, l)
		}
	}
	return out
}
