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
			if !w.answering(a) {
				t.Fatalf("%s: %v was not pending", s.name, a)
			}
			w.written(1)
		}
		if got := w.admit(s.ids, 3); got != s.want {
			t.Errorf("%s: admit = %d; want %d", s.name, got, s.want)
		}
	}
	if got := (&lineWriter{}).admit(make([]jsonrpc.ID, 0), 0); got != admitted {
		t.Errorf("no ids: %d", got)
	}
}

// TestIDFreeBeforeWritten: an answer's id is free as soon as the answer is
// being written (the client may read it and reuse the id before the write
// returns), while the answer still counts against the bound until it is
// written.
func TestIDFreeBeforeWritten(t *testing.T) {
	one, err := jsonrpc.MakeID(float64(1))
	if err != nil {
		t.Fatal(err)
	}
	w := &lineWriter{}
	if got := w.admit([]jsonrpc.ID{one}, 1); got != admitted {
		t.Fatalf("first: %d", got)
	}
	if !w.answering(one) {
		t.Fatal("answering: the admitted id is not pending")
	}
	if got := w.admit([]jsonrpc.ID{one}, 2); got != admitted {
		t.Errorf("the id reused while its answer is written: admit = %d; want admitted (not a duplicate)", got)
	}
	if got := w.admit([]jsonrpc.ID{one}, 0); got != admitDuplicate {
		t.Errorf("the id reused while the second is unanswered: admit = %d; want admitDuplicate", got)
	}
	if got := w.admit([]jsonrpc.ID{mustID(t, "x")}, 2); got != admitBusy {
		t.Errorf("a third while two answers are unwritten, bound 2: admit = %d; want admitBusy", got)
	}
	w.written(1)
	if got := w.admit([]jsonrpc.ID{mustID(t, "x")}, 2); got != admitted {
		t.Errorf("once the first answer is written: admit = %d; want admitted", got)
	}
	if w.answering(mustID(t, "never admitted")) {
		t.Error("answering reports an id admit never counted")
	}
}

func mustID(t *testing.T, v any) jsonrpc.ID {
	t.Helper()
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
