package egress

import (
	"context"

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
