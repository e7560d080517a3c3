package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/ocfetch/ocfetch/content"
	"github.com/ocfetch/ocfetch/diag"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/deadline"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/respcache"
	"github.com/ocfetch/ocfetch/tool"
)

// acceptHeader asks for what the converter reads best.
const acceptHeader = "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,*/*;q=0.5"

// InvokableRun executes the prepared artifact bound to ctx (tool.WithArtifact)
// for its own execution id. The raw arguments are ignored, never reparsed;
// without a bound artifact of this tool, or with one whose recorded
// execution id differs from the binding's, it fails closed.
//
// It dials under the admission the broker bound for the call's target
// (tool.WithAdmissions: the policy.Decision's Target and LoopbackPort) and
// no other: fetch decides nothing about admission itself. A redirect hop is
// a new question to the same decision (the bound tool.Redecide, see
// checkRedirect). Local mode's port is carried on the request context for
// the egress guard. The run is bounded by
// Options.Timeout, by the redirect policy (see checkRedirect), by the body
// cap (counted after decompression; a longer body is cut and the result
// says so), and by max_length/start_index.
//
// Every failure is an error result (IsError, a reason code, a message naming
// method and host only); the returned error is always nil. A 4xx or 5xx
// response is a delivered result, not an error.
func (f *Fetch) InvokableRun(ctx context.Context, _ string) (*tool.Result, error) {
	art, id, ok := tool.ArtifactFrom(ctx)
	p, isOurs := art.(*prepared)
	if !ok || !isOurs || p == nil || p.id != id {
		f.log.Log(ctx, diag.L2, "run refused", "reason", string(refusal.InternalError), "why", "no prepared artifact bound")
		return tool.ErrorResult(refusal.New(refusal.InternalError, "no prepared fetch call is bound to this execution; nothing was sent").
			WithHint("the runtime must run PrepareCall and bind its artifact (tool.WithArtifact) before InvokableRun")), nil
	}
	if f.client == nil {
		return tool.ErrorResult(refusal.New(refusal.InternalError, "the fetch tool has no HTTP client; nothing was sent")), nil
	}
	ad, again, ok := tool.AdmissionFor(ctx, p.target)
	if !ok || (p.local && ad.LoopbackPort != p.target.Port()) || (!p.local && ad.LoopbackPort != 0) {
		f.log.Log(ctx, diag.L2, "run refused", "reason", string(refusal.InternalError), "why", "no admission bound for the target")
		return tool.ErrorResult(refusal.Newf(refusal.InternalError, "no decision admits %s for this call; nothing was sent", p.target).
			WithHint("the runtime must decide the call's requirement (policy.Decide) and bind the admission (tool.WithAdmissions) before InvokableRun")), nil
	}
	res, err := f.run(ctx, p, again)
	if err != nil {
		f.logDecision(ctx, "run failed", err, p)
		var off *offTarget
		if errors.As(err, &off) {
			return redirectResult(p, err, off), nil
		}
		return tool.ErrorResult(err), nil
	}
	return res, nil
}

func (f *Fetch) run(ctx context.Context, p *prepared, again tool.Redecide) (*tool.Result, error) {
	// The call's deadline, served by the process's one deadline timer
	// (package deadline): a timer of its own per call would cost a
	// runtime wake-up per call.
	ctx, cancel := deadline.WithTimeout(ctx, p.timeout)
	defer cancel()
	// The guard dials the target parsed once (every hop stays on it); a
	// public call admits no loopback port, whatever the caller's context
	// carries. p is immutable.
	ctx = egress.WithRequestTarget(ctx, &p.target, p.local)

	if f.opts.Robots != nil {
		if err := f.checkRobots(ctx, p, again, p.url); err != nil {
			return nil, err
		}
	}

	var body io.Reader
	if p.hasBody {
		body = strings.NewReader(p.body)
	}
	// The request is built from the prepared URL itself: nothing is parsed
	// again, and the copy keeps the artifact immutable.
	req, err := http.NewRequestWithContext(ctx, p.method, "", body)
	if err != nil {
		return nil, refusal.Newf(refusal.InternalError, "%s %s: the request could not be built", p.method, p.target.Host())
	}
	u := *p.url
	req.URL = &u
	for k, v := range p.header {
		req.Header[k] = v
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", f.userAgent)
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", acceptHeader)
	}

	// A shallow copy: the injected client is shared and never mutated.
	// Jar is dropped so no cookie outlives the call.
	client := *f.client
	client.CheckRedirect = f.checkRedirect(p, again)
	client.Jar = nil
	if client.Timeout >= p.timeout {
		// ctx ends first (at most p.timeout from now): the client's
		// Timeout, counted from a later now, can never fire before it,
		// and would cost a second context and timer per call.
		client.Timeout = 0
	}
	var hit *respcache.Hit // nil without a cache: nothing allocated
	if f.opts.Cache != nil && !p.local {
		// Local mode is never cached (a dev server changes); every hop
		// stays on the call's host (checkRedirect), so this holds for them.
		hit = new(respcache.Hit)
		client.Transport = f.opts.Cache.Transport(client.Transport, hit)
	}

	if f.log.Enabled(ctx, diag.L3) {
		f.log.Log(ctx, diag.L3, "request", "method", p.method, "host", p.target.Host(), "port", p.target.Port(), "local", p.local)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, f.requestError(ctx, p, err)
	}
	defer resp.Body.Close()

	buf, cut, err := readBody(resp, p.maxBody, headRoom)
	if err != nil {
		return nil, f.bodyError(ctx, p, err)
	}
	resp.Body.Close() // now: an endless body must not hold the connection while we convert
	raw := buf[headRoom:]

	out := Output{
		Status:        resp.StatusCode,
		URL:           resp.Request.URL.String(),
		Headers:       localfetch.BoundedResponseHeaders(resp.Header), // never nil
		Format:        p.format,
		Bytes:         int64(len(raw)),
		BodyTruncated: cut,
		StartIndex:    p.startIndex,
	}
	if hit != nil && hit.Hit {
		out.Cached, out.FetchedAt = true, hit.Fetched.UTC().Format(time.RFC3339)
	}
	if cut {
		out.Notes = append(out.Notes, fmt.Sprintf("body cut at %d bytes (the cap); the content is that of the first %d bytes", p.maxBody, p.maxBody))
	}

	ctype := resp.Header.Get("Content-Type")
	doc, cerr := content.Convert(ctx, raw, ctype, content.Options{Format: p.format, BaseURL: resp.Request.URL, OwnBody: true})
	if cerr != nil && ctx.Err() != nil {
		return nil, f.bodyError(ctx, p, cerr) // the deadline ran out while converting
	}
	if cerr != nil {
		if r, ok := refusal.As(cerr); ok && r.Code == refusal.ContentTooComplex {
			return nil, r // named, with the hint to ask for format raw
		}
		mt, _, _ := mime.ParseMediaType(ctype)
		if mt == "" {
			mt = "unknown"
		}
		out.MediaType = mt
		out.Notes = append(out.Notes, "the body ("+mt+") could not be converted to "+string(p.format)+"; no content is shown")
		f.log.Log(ctx, diag.L3, "content not converted", "host", p.target.Host(), "media_type", mt, "reason", string(reasonOf(cerr)))
	} else {
		out.MediaType = doc.MediaType
		out.Title = doc.Title
		out.Notes = append(out.Notes, doc.Notes...)
		page := content.Paginate(doc.Text, p.startIndex, p.maxLength)
		out.Content = page.Content
		out.Truncated = page.Truncated
		out.Remaining = page.Remaining
		if page.Truncated {
			out.NextStartIndex = page.NextStartIndex
		}
		if page.PastEnd() {
			out.Notes = append(out.Notes, fmt.Sprintf("start_index %d is past the end; the content has %d characters", p.startIndex, page.Total))
		}
	}

	if f.log.Enabled(ctx, diag.L2) {
		f.log.Log(ctx, diag.L2, "response", "method", p.method, "host", p.target.Host(), "port", p.target.Port(),
			"status", out.Status, "bytes", out.Bytes, "body_truncated", cut, "truncated", out.Truncated)
	}
	return &tool.Result{
		Content:    renderOver(out, buf, headRoom),
		Structured: out,
		Status:     out.Status,
		Bytes:      out.Bytes,
	}, nil
}
