//go:build linux || darwin || freebsd || netbsd

package trust

import "strconv"

// birthOf formats a birth time, "sec.nnnnnnnnn"; a zero or negative one
// (what BSDs and macOS report where the file system records none) is
// none.
func birthOf(sec, nsec int64) string {
	if sec <= 0 || nsec < 0 || nsec >= 1e9 {
		return ""
	}
	var buf [32]byte
	b := strconv.AppendInt(buf[:0], sec, 10)
	dot := len(b)
	b = strconv.AppendInt(append(b, '.'), nsec+1e9, 10) // "sec.1nnnnnnnnn"
	return string(append(b[:dot+1], b[dot+2:]...))      // drop the 1: zero-padded
}
