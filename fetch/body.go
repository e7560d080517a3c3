package fetch

import (
	"compress/flate"
	"compress/gzip"
	"errors"
	"io"
	"net/http"

	"github.com/ocfetch/ocfetch/internal/boundedread"
	"github.com/ocfetch/ocfetch/internal/gzipbody"
)

// errBadEncoding marks a body whose Content-Encoding could not be decoded.
var errBadEncoding = errors.New("body could not be decompressed")

// readBody reads at most limit bytes of resp's body, counted after
// decompression, into buf[room:], and reports whether more followed
// (truncated); buf[:room] is left for the caller (the head of the
// rendered result, [renderOver]), in the same allocation. The buffer and
// its bound are internal/boundedread's: at most limit+1 bytes read, the
// first allocation sized from a Content-Length within the cap, so an
// endless body or a compression bomb costs under 2×limit (plus room).
//
// Go's transport decompresses gzip itself when it asked for it
// (resp.Uncompressed); a gzip body the transport did not decode (for
// example with compression disabled on the transport) is decoded here, so
// the cap always counts decompressed bytes, and the declared length,
// which counts compressed ones, sizes nothing.
func readBody(resp *http.Response, limit int64, room int) (buf []byte, truncated bool, err error) {
	var r io.Reader = resp.Body
	declared := resp.ContentLength
	decoding := false
	if gzipbody.LeftEncoded(resp) {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			if errors.Is(err, io.EOF) { // an empty body, declared gzip
				return make([]byte, room), false, nil
			}
			return nil, false, errors.Join(errBadEncoding, err)
		}
		defer zr.Close()
		r, decoding, declared = zr, true, -1
	}
	buf, truncated, err = boundedread.Read(r, room, declared, limit)
	if err != nil && decoding && isCorrupt(err) {
		return buf, false, errors.Join(errBadEncoding, err)
	}
	return buf, truncated, err
}

// isCorrupt reports whether err is a gzip or deflate format error rather
// than an I/O error of the connection underneath.
func isCorrupt(err error) bool {
	var ce flate.CorruptInputError
	return errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, &ce)
}
