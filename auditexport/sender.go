package auditexport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// maxResponse bounds the collector's answer read: an
// ExportLogsServiceResponse is a count and a message.
const maxResponse = 64 << 10

// maxResponseHead bounds the head of the collector's answer (its status
// line and headers) that the exporter's own client reads.
const maxResponseHead = 64 << 10

// userAgent names the sender to the collector.
const userAgent = "ocfetch-audit-export (OTLP/HTTP protobuf)"

// errStatus is a collector's answer other than 2xx.
type errStatus struct{ code int }

func (e errStatus) Error() string {
	return fmt.Sprintf("collector answered %d %s", e.code, http.StatusText(e.code))
}

// sender sends the batcher's requests: each one OTLP/HTTP request
// (protobuf, ExportLogsServiceRequest, POST to the logs URL) with client,
// its answer read by the OTLP/HTTP rules: 2xx is success, less the
// records a partial_success rejects; anything else fails the whole
// batch. A failed request is not retried: the JSONL file has every line,
// and a retry would hold the batch (and Shutdown) for its backoff.
type sender struct {
	url    string
	client *http.Client
}

// post sends one encoded request and reads its answer. The body reader
// is detached before post returns, so the transport (which may still
// hold it, for a request whose answer came before its body was sent) can
// never read buf once it is being reused. Errors carry neither the URL
// nor the answer's body.
func (s *sender) post(ctx context.Context, body []byte) (partialSuccess, error) {
	g := &detachable{}
	defer g.detach()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, g.reader(body))
	if err != nil {
		return partialSuccess{}, err
	}
	req.ContentLength = int64(len(body))
	// Redirects (307, 308) on the collector send the body again; the
	// client follows none to another origin (sameOrigin).
	req.GetBody = func() (io.ReadCloser, error) { return g.reader(body), nil }
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", userAgent)
	resp, err := s.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return partialSuccess{}, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return partialSuccess{}, errStatus{resp.StatusCode}
	}
	if err != nil || len(answer) == 0 || !isProtobuf(resp.Header.Get("Content-Type")) {
		// The records were accepted; an answer cut short or in another
		// encoding says nothing more.
		return partialSuccess{}, nil
	}
	return parseResponse(answer)
}

// isProtobuf reports whether a Content-Type is OTLP's protobuf one.
func isProtobuf(ctype string) bool {
	if i := strings.IndexByte(ctype, ';'); i >= 0 {
		ctype = ctype[:i]
	}
	return strings.EqualFold(strings.TrimSpace(ctype), "application/x-protobuf")
}

// detachable hands out readers over one request's body until detach,
// after which they read nothing.
type detachable struct {
	mu       sync.Mutex
	detached bool
}

func (g *detachable) reader(b []byte) io.ReadCloser { return &bodyReader{g: g, b: b} }

func (g *detachable) detach() {
	g.mu.Lock()
	g.detached = true
	g.mu.Unlock()
}

type bodyReader struct {
	g *detachable
	b []byte
}

func (r *bodyReader) Read(p []byte) (int, error) {
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	if r.g.detached {
		return 0, errDetached
	}
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

func (r *bodyReader) Close() error { return nil }

// errDetached is what a transport reads from a request body after its
// export has ended.
var errDetached = errors.New("audit export request already ended")
