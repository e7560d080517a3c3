package tool_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/tool"
)

type otherKey struct{}

// TestBindingLayers: the artifact and the admissions, bound as the broker
// binds them, each answer through the other and through a derived cancel
// context; keys of other packages reach the parent; each binding is one
// allocation; the parent's cancellation passes on.
func TestBindingLayers(t *testing.T) {
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), otherKey{}, "parent"))
	defer cancel()
	id := uuid.New()
	art := struct{ method string }{"GET"}
	target := capability.MustTarget("example.com", 443)
	admitted := []tool.Admission{{Target: target}}
	ctx, stop := context.WithCancel(tool.WithAdmissions(tool.WithArtifact(parent, id, art), admitted, nil))
	defer stop()

	if got, gotID, ok := tool.ArtifactFrom(ctx); !ok || gotID != id || got != art {
		t.Errorf("ArtifactFrom = %v, %v, %v; want %v, %v, true", got, gotID, ok, art, id)
	}
	if ad, _, ok := tool.AdmissionFor(ctx, target); !ok || ad.Target != target {
		t.Errorf("AdmissionFor(%v) = %v, %v; want it admitted", target, ad, ok)
	}
	if _, _, ok := tool.AdmissionFor(ctx, capability.MustTarget("example.org", 443)); ok {
		t.Error("AdmissionFor(another target) ok; want fail closed")
	}
	if got := ctx.Value(otherKey{}); got != "parent" {
		t.Errorf("Value(otherKey) = %v; want the parent's", got)
	}

	var boxed tool.PreparedArtifact = art // as the broker holds it
	for name, bind := range map[string]func(){
		"WithArtifact":   func() { ctxSink = tool.WithArtifact(parent, id, boxed) },
		"WithAdmissions": func() { ctxSink = tool.WithAdmissions(parent, admitted, nil) },
	} {
		if n := testing.AllocsPerRun(100, bind); n != 1 {
			t.Errorf("%s: %v allocations; want 1", name, n)
		}
	}

	cancel()
	<-ctx.Done() // a hang here fails the test by its timeout
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("ctx.Err() = %v; want context.Canceled", ctx.Err())
	}
}

// ctxSink keeps a counted context on the heap, as a call's is.
var ctxSink context.Context
