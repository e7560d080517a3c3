package egress

import (
	"context"
	"fmt"

	"github.com/ocfetch/ocfetch/capability"
)

type targetKey struct{}

// WithTarget carries on ctx the target a request dials (not to be
// changed while the request runs), as the caller
// parsed it (a non-zero capability.Target holds a host
// [capability.NormalizeHost] returned, by construction: the type proves
// it): the Guard, asked to dial exactly that host and port, takes
// the host as it is instead of normalising it again — parse once, one
// normalisation per call. It admits nothing: every check of
// [Guard.DialContext] applies (local mode's admission, the public-address
// check of every resolved address, the connect-time check); any other
// address is normalised as ever.
func WithTarget(ctx context.Context, t *capability.Target) context.Context {
	return context.WithValue(ctx, targetKey{}, t) // a pointer: no copy boxed per call
}

// normalizedHost is rawHost normalised: the carried target's host when
// rawHost and port are exactly it ([WithTarget]), else NormalizeHost's.
func normalizedHost(ctx context.Context, rawHost string, port uint16) (string, error) {
	if t, ok := ctx.Value(targetKey{}).(*capability.Target); ok && t != nil && !t.IsZero() && t.Host() == rawHost && t.Port() == port {
		return t.Host(), nil
	}
	return capability.NormalizeHost(rawHost)
}

// WithRequestTarget is what a caller sets on each request's context, in
// one layer (one allocation where the two calls it stands for make
// three): [WithTarget](ctx, t), and then, when local, [WithLoopback] of
// *t, local mode's admission of exactly the target carried; when not
// local, a WithLoopback that admits nothing, so that no loopback
// admission on the caller's ctx reaches the request. Neither t nor *t may
// change while the request runs.
func WithRequestTarget(ctx context.Context, t *capability.Target, local bool) context.Context {
	return &requestTarget{Context: ctx, target: t, local: local}
}

// requestTarget is WithRequestTarget's layer: it answers the keys of
// WithTarget and WithLoopback with pointers (no value boxed per lookup)
// and hands every other key to its parent, so a cancel context derived
// from it still finds its parent's cancellation without a goroutine.
type requestTarget struct {
	context.Context
	target *capability.Target
	local  bool
}

// noLoopback is the loopback admission of a public request: none.
var noLoopback = new(capability.Target)

func (c *requestTarget) Value(key any) any {
	switch key.(type) {
	case targetKey:
		return c.target
	case loopbackKey:
		if c.local {
			return c.target
		}
		return noLoopback
	}
	return c.Context.Value(key)
}

func (c *requestTarget) String() string {
	return fmt.Sprint(c.Context) + ".WithRequestTarget"
}
