package fetch

import (
	"compress/flate"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"strings"
)

// errBadEncoding marks a body whose Content-Encoding could not be decoded.
var errBadEncoding = errors.New("body could not be decompressed")

// firstChunk is the initial buffer for a body of unknown length; it
// doubles up to growLimit, and then grows once, to the cap.
const (
	firstChunk = 32 << 10
	growLimit  = 1 << 20
)

// readBody reads at most limit bytes of resp's body, counted after
// decompression, into buf[room:], and reports whether more followed
// (truncated); buf[:room] is left for the caller (the head of the
// rendered result, [renderOver]), in the same allocation. It reads
// limit+1 bytes at most, so an endless body or a compression bomb costs at
// most limit+1 bytes of buffer: the buffer doubles from 32 KiB (or starts at
// the declared Content-Length + 1 when that fits) and never grows past
// limit+1, so the peak is under 2×limit (plus room).
//
// Go's transport decompresses gzip itself when it asked for it
// (resp.Uncompressed); a gzip body the transport did not decode (for
// example with compression disabled on the transport) is decoded here, so
// the cap always counts decompressed bytes.
func readBody(resp *http.Response, limit int64, room int) (buf []byte, truncated bool, err error) {
	var r io.Reader = resp.Body
	decoding := false
	if !resp.Uncompressed && strings.EqualFold(strings.TrimSpace(resp.Header.Get("Content-Encoding")), "gzip") {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			if errors.Is(err, io.EOF) { // an empty body, declared gzip
				return make([]byte, room), false, nil
			}
			return nil, false, errors.Join(errBadEncoding, err)
		}
		defer zr.Close()
		r, decoding = zr, true
	}
	max := limit + 1
	size := int64(firstChunk)
	if resp.ContentLength >= 0 && !decoding {
		size = resp.ContentLength + 1
	}
	size = min(size, max)
	head := int64(room)
	buf = make([]byte, room, head+size)
	for {
		if int64(len(buf))-head == max {
			break
		}
		if len(buf) == cap(buf) {
			next := (int64(cap(buf)) - head) * 2
			if next > growLimit {
				next = max // a body this long may well reach the cap: one last allocation
			}
			next = min(next, max)
			nb := make([]byte, len(buf), head+next)
			copy(nb, buf)
			buf = nb
		}
		n, rerr := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			if decoding && isCorrupt(rerr) {
				return buf, false, errors.Join(errBadEncoding, rerr)
			}
			return buf, false, rerr
		}
	}
	if int64(len(buf))-head > limit {
		return buf[:head+limit], true, nil
	}
	return buf, false, nil
}

// isCorrupt reports whether err is a gzip or deflate format error rather
// than an I/O error of the connection underneath.
func isCorrupt(err error) bool {
	var ce flate.CorruptInputError
	return errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, &ce)
}
