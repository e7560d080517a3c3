package tool_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/tool"
)

func TestArtifactBinding(t *testing.T) {
	ctx := context.Background()
	if _, _, ok := tool.ArtifactFrom(ctx); ok {
		t.Fatal("ArtifactFrom(empty ctx) ok; want fail closed")
	}
	id := uuid.New()
	art := struct{ method string }{"GET"}
	got, gotID, ok := tool.ArtifactFrom(tool.WithArtifact(ctx, id, art))
	if !ok || gotID != id || got != art {
		t.Errorf("ArtifactFrom = %v, %v, %v; want %v, %v, true", got, gotID, ok, art, id)
	}
	if _, _, ok := tool.ArtifactFrom(tool.WithArtifact(ctx, id, nil)); ok {
		t.Error("a nil artifact was reported bound; want fail closed")
	}
}

func TestErrorResult(t *testing.T) {
	r := tool.ErrorResult(refusal.New(refusal.HTTPSRequired, "scheme http is not allowed for example.com").WithHint("use https://"))
	want := "https_required: scheme http is not allowed for example.com\nhint: use https://"
	if !r.IsError || r.Reason != refusal.HTTPSRequired || r.Content != want {
		t.Errorf("ErrorResult = %+v; want IsError, https_required, content %q", r, want)
	}

	// An error that is not a refusal may carry a URL: its text never shows.
	leaky := &url.Error{Op: "Get", URL: "https://example.com/p?token=secret", Err: errors.New("x")}
	r = tool.ErrorResult(leaky)
	if r.Reason != refusal.InternalError || strings.Contains(r.Content+r.Message, "secret") {
		t.Errorf("ErrorResult(url.Error) = %+v; want internal_error without the URL", r)
	}
}

func TestGrantPairEmpty(t *testing.T) {
	if !(tool.GrantPair{}).Empty() {
		t.Error("zero GrantPair not empty")
	}
	if (tool.GrantPair{Read: []string{"/tmp"}}).Empty() {
		t.Error("GrantPair with a read path reported empty")
	}
}

// infoTool is a Tool whose Info says name (or fails); named adds Name.
type infoTool struct {
	name string
	err  error
}

func (t infoTool) Info(context.Context) (*tool.Info, error) {
	if t.err != nil {
		return nil, t.err
	}
	return &tool.Info{Name: t.name}, nil
}
func (infoTool) PrepareCall(context.Context, uuid.UUID, string) (tool.Request, tool.PreparedArtifact, error) {
	return tool.Request{}, nil, nil
}
func (infoTool) InvokableRun(context.Context, string) (*tool.Result, error) { return nil, nil }
func (infoTool) AuditSummary(string) string                                 { return "" }

type namedTool struct {
	infoTool
	own string
}

func (t namedTool) Name() string { return t.own }

func TestNameOf(t *testing.T) {
	cases := []struct {
		name string
		t    tool.Tool
		want string
	}{
		{"info", infoTool{name: "fetch"}, "fetch"},
		{"info fails", infoTool{err: errors.New("no info")}, "tool"},
		{"info without a name", infoTool{}, "tool"},
		{"named, not asking info", namedTool{infoTool: infoTool{err: errors.New("must not be asked")}, own: "search"}, "search"},
		{"named empty", namedTool{infoTool: infoTool{name: "fetch"}}, "tool"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tool.NameOf(context.Background(), tc.t); got != tc.want {
				t.Errorf("NameOf = %q; want %q", got, tc.want)
			}
		})
	}
}
