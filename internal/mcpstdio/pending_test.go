package mcpstdio

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestAdmit: requests handed to the server are counted until their answer
// is written; beyond the bound, or with an id still unanswered, they are
// refused.
func TestAdmit(t *testing.T) {
	id := func(v any) jsonrpc.ID {
		t.Helper()
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	w := &lineWriter{}
	steps := []struct {
		name     string
		ids      []jsonrpc.ID
		answered []jsonrpc.ID // before admitting ids
		want     admitRefusal
	}{
		{"first", []jsonrpc.ID{id(float64(1))}, nil, admitted},
		{"a batch of two", []jsonrpc.ID{id("a"), id(float64(2))}, nil, admitted},
		{"an id still unanswered", []jsonrpc.ID{id(float64(1))}, nil, admitDuplicate},
		{"an id repeated in a batch", []jsonrpc.ID{id(float64(5)), id(float64(5))}, nil, admitDuplicate},
		{"one beyond the bound", []jsonrpc.ID{id(float64(3))}, nil, admitBusy},
		{"room again once one is answered", []jsonrpc.ID{id(float64(3))}, []jsonrpc.ID{id(float64(1))}, admitted},
		{"an answered id may come again", []jsonrpc.ID{id(float64(1))}, []jsonrpc.ID{id("a")}, admitted},
	}
	for _, s := range steps {
		for _, a := range s.answered {
			w.answered(a)
		}
		if got := w.admit(s.ids, 3); got != s.want {
			t.Errorf("%s: admit = %d; want %d", s.name, got, s.want)
		}
	}
	if got := (&lineWriter{}).admit(make([]jsonrpc.ID, 0), 0); got != admitted {
		t.Errorf("no ids: %d", got)
	}
}
