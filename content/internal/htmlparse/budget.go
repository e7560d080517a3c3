package htmlparse

import (
	"errors"
	"fmt"
)

// ErrTooComplex is wrapped by the error Parse returns when building the
// tree would pass its budget.
var ErrTooComplex = errors.New("html: tree construction passed its work budget")

// ctxCheckEvery: the parser checks its context once per this many units.
const ctxCheckEvery = 4096

// budgetError carries an error out of the parser through a panic, which
// parse recovers (x/net/html already turns its own panics into errors
// there); deep inside tree construction there is no other way out.
type budgetError struct{ err error }

// charge spends n units of the budget. Past the budget it stops the parse
// with ErrTooComplex; every ctxCheckEvery units it stops the parse with
// ctx.Err() when ctx is done.
func (p *parser) charge(n int) {
	p.left -= n
	if p.left < 0 {
		panic(budgetError{fmt.Errorf("%w (%d units)", ErrTooComplex, p.spent+n)})
	}
	before := p.spent
	p.spent += n
	if before/ctxCheckEvery != p.spent/ctxCheckEvery {
		if err := p.ctx.Err(); err != nil {
			panic(budgetError{err})
		}
	}
}

// cloneCharged is clone, charged one unit for the node and one per
// attribute copied: the adoption agency's clones are inserted without
// addChild.
func (p *parser) cloneCharged(n *Node) *Node {
	p.charge(1 + len(n.Attr))
	return clone(n)
}
