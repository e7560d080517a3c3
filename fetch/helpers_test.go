package fetch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ocfetch/ocfetch/managed"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/trust"

	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/tool"
	"github.com/ocfetch/ocfetch/workspace"
)

// newWorkspace returns a temporary workspace whose local_fetch.json allows
// ports (none: no file at all).
func newWorkspace(t testing.TB, ports ...uint16) workspace.Workspace {
	t.Helper()
	ws := testws.Bare(t)
	if len(ports) > 0 {
		writeAllowlist(t, ws, ports...)
	}
	return ws
}

// writeAllowlist (re)writes ws's local_fetch.json to allow exactly ports.
func writeAllowlist(t testing.TB, ws workspace.Workspace, ports ...uint16) {
	t.Helper()
	testws.Write(t, ws, testws.Spec{LocalPorts: append([]uint16{}, ports...)})
}

// localFetch is a Fetch for local mode on ports, with client (which may be
// nil for prepare-only tests).
func localFetch(t testing.TB, client *http.Client, ports ...uint16) (*Fetch, workspace.Workspace) {
	t.Helper()
	ws := newWorkspace(t, ports...)
	return newFetch(client, &Options{}, ws, risk.Permissive), ws
}

// testScope is what the broker would decide a test Fetch's calls under:
// fetch itself knows no workspace and no profile.
type testScope struct {
	ws      workspace.Workspace
	profile risk.Profile
}

var scopes sync.Map // *Fetch → testScope

// newFetch is NewFetch for a test whose calls are decided in ws under
// profile (see [call]).
func newFetch(client *http.Client, opts *Options, ws workspace.Workspace, profile risk.Profile) *Fetch {
	f := NewFetch(client, opts)
	scopes.Store(f, testScope{ws: ws, profile: profile})
	return f
}

func scopeOf(f *Fetch) testScope {
	sc, _ := scopes.Load(f)
	s, _ := sc.(testScope)
	return s
}

// argsJSON marshals a call's arguments.
func argsJSON(t testing.TB, m map[string]any) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// call prepares and runs args, as the broker does once approved. A
// refusal at prepare time comes back as an error result too.
func call(ctx context.Context, f *Fetch, args string) *tool.Result {
	id := uuid.New()
	req, art, err := f.PrepareCall(ctx, id, args)
	if err != nil {
		return tool.ErrorResult(err)
	}
	if err := decide(ctx, f, req); err != nil {
		return tool.ErrorResult(err)
	}
	res, err := f.InvokableRun(bind(ctx, f, id, art, req), args)
	if err != nil {
		panic(fmt.Sprintf("InvokableRun returned a Go error: %v", err))
	}
	return res
}

// decide asks policy.Decide about every requirement of req, as the broker
// does, and returns the first refusal. Ask counts as approved: the tests
// that use it play a user who approves.
func decide(ctx context.Context, f *Fetch, req tool.Request) error {
	for _, need := range req.Requirements {
		d := policy.Decide(ctx, policy.Args{Origin: need.Origin(), Workspace: scopeOf(f).ws, Profile: scopeOf(f).profile, Layers: layersFor(scopeOf(f).ws)})
		if d.Result == policy.Deny {
			return d.Refusal
		}
	}
	return nil
}

// bind binds art and the admissions of req's requirements to ctx, as the
// broker does once a call is approved: each requirement's admission is
// policy.Decide's Target and LoopbackPort, and a redirect hop is a new
// question to policy.Decide (Ask counts as approved for the call's own
// targets, as in [decide]).
func bind(ctx context.Context, f *Fetch, id uuid.UUID, art tool.PreparedArtifact, req tool.Request) context.Context {
	var admitted []tool.Admission
	for _, need := range req.Requirements {
		a, err := redecide(f)(ctx, need.Origin())
		if err == nil {
			admitted = append(admitted, a)
		}
	}
	return tool.WithAdmissions(tool.WithArtifact(ctx, id, art), admitted, redecide(f))
}

// redecide is the tests' tool.Redecide: policy.Decide on f's workspace and
// profile, Ask counting as approved.
func redecide(f *Fetch) tool.Redecide {
	return func(ctx context.Context, o capability.Origin) (tool.Admission, error) {
		d := policy.Decide(ctx, policy.Args{Origin: o, Workspace: scopeOf(f).ws, Profile: scopeOf(f).profile, Layers: layersFor(scopeOf(f).ws)})
		if d.Result == policy.Deny {
			return tool.Admission{}, d.Refusal
		}
		return tool.Admission{Target: d.Target, LoopbackPort: d.LoopbackPort}, nil
	}
}

// noLayersDir is a directory that does not exist: no managed policy, no
// user rules, an empty trust store, for the zero Workspace.
var (
	noLayersDir      = filepath.Join(os.TempDir(), "ocfetch-fetch-test-no-layers-"+uuid.NewString())
	noLayersStore, _ = trust.Open(&trust.Options{Dir: noLayersDir})
)

// trustedRoots are the workspaces layersFor has trusted.
var trustedRoots sync.Map

// layersFor returns the layers of a test workspace: its own trust store,
// in which ws is trusted (these tests play a user whose files they are),
// no user rules and no managed policy — all under ws.Root/.test-layers,
// never the real os.UserConfigDir() or /etc/ocfetch.
func layersFor(ws workspace.Workspace) *policy.Layers {
	if ws.Root == "" {
		// The zero Workspace (a Fetch with no workspace): nothing trusted,
		// and nothing written into the package directory.
		return &policy.Layers{
			Managed: &managed.Options{Path: filepath.Join(noLayersDir, "policy.json")},
			Trust:   noLayersStore,
			User:    &rules.Location{Dir: noLayersDir, Name: "rules.json"},
		}
	}
	dir := filepath.Join(ws.Root, ".test-layers")
	s, err := trust.Open(&trust.Options{Dir: dir})
	if err != nil {
		panic(err)
	}
	once, _ := trustedRoots.LoadOrStore(ws.Root, new(sync.Once))
	once.(*sync.Once).Do(func() {
		if err := s.Trust(context.Background(), ws.Root, trust.Details{How: "test"}); err != nil {
			panic(err)
		}
	})
	return &policy.Layers{
		Managed: &managed.Options{Path: filepath.Join(dir, "policy.json")},
		Trust:   s,
		User:    &rules.Location{Dir: dir, Name: "rules.json"},
	}
}

// prepareAndDecide is PrepareCall followed by [decide]: the refusal a
// caller of the broker sees before anything is sent.
func prepareAndDecide(ctx context.Context, f *Fetch, args string) (tool.Request, tool.PreparedArtifact, error) {
	req, art, err := f.PrepareCall(ctx, uuid.New(), args)
	if err != nil {
		return req, art, err
	}
	return req, art, decide(ctx, f, req)
}

// wantCode fails t unless err is a refusal with code want.
func wantCode(t testing.TB, err error, want refusal.Code) {
	t.Helper()
	if got := refusal.CodeOf(err); got != want {
		t.Fatalf("refusal code %q (%v); want %q", got, err, want)
	}
}
