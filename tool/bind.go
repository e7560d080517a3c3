package tool

import (
	"context"
	"fmt"
)

// bound is a context layer answering one key, K's zero value, with a
// pointer to the value it holds: one allocation where context.WithValue
// of a struct makes two (the layer and the value boxed in it), and
// nothing boxed per lookup. Every other key goes to the parent, so a
// cancel context derived from it still finds the parent's cancellation
// without a goroutine. The broker binds an artifact and its admissions
// on every call.
type bound[K comparable, V any] struct {
	context.Context
	v V
}

func bind[K comparable, V any](ctx context.Context, v V) context.Context {
	return &bound[K, V]{Context: ctx, v: v}
}

func (c *bound[K, V]) Value(key any) any {
	if _, ok := key.(K); ok {
		return &c.v
	}
	return c.Context.Value(key)
}

func (c *bound[K, V]) String() string {
	var k K
	return fmt.Sprintf("%v.WithValue(%T)", c.Context, k)
}
