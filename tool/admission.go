package tool

import (
	"context"

	"github.com/ocfetch/ocfetch/capability"
)

// Admission is the runtime's decision on one requirement, carried to the
// dial: the transport dials Target and no other, and — in local mode — the
// loopback address Target names, on LoopbackPort only. It is the
// policy.Decision's Target and LoopbackPort, handed over by the broker; a
// tool never decides admission itself (docs/DESIGN.md, "The decision").
type Admission struct {
	// Target is the host and port the transport may dial.
	Target capability.Target
	// LoopbackPort is the port local mode admitted (0: not local mode).
	LoopbackPort uint16
}

// Redecide asks the runtime's one decision step again, for an origin the
// call has reached since it was approved (a redirect hop): the same
// question to the same policy, with the files read again. A refusal is a
// *refusal.Error; nothing may be sent to o then.
type Redecide func(ctx context.Context, o capability.Origin) (Admission, error)

type admissionKey struct{}

type boundAdmissions struct {
	admitted []Admission
	again    Redecide
}

// WithAdmissions binds the admissions of a call's requirements to ctx,
// with again for every later origin (a redirect hop). The broker binds
// them with the artifact; a tool run without them sends nothing.
func WithAdmissions(ctx context.Context, admitted []Admission, again Redecide) context.Context {
	return bind[admissionKey](ctx, boundAdmissions{admitted: admitted, again: again})
}

// AdmissionFor returns the admission bound to ctx for target, and the
// function that decides a later origin of the same call (nil when none was
// bound: every later origin is then refused).
func AdmissionFor(ctx context.Context, target capability.Target) (Admission, Redecide, bool) {
	b, ok := ctx.Value(admissionKey{}).(*boundAdmissions)
	if !ok || b == nil {
		return Admission{}, nil, false
	}
	for _, a := range b.admitted {
		if a.Target == target {
			return a, b.again, true
		}
	}
	return Admission{}, nil, false
}
