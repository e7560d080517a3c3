package htmlparse

import (
	"errors"
	"fmt"

	a "golang.org/x/net/html/atom"
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

// scanPerUnit: the elements the parser's loops over its stacks (open
// elements, active formatting elements) visit are counted in
// parser.scanned and charged, with the next token, one unit per this
// many. Handling a token may scan the whole stack of open elements (a
// start tag such as <p>, <hr>, <li> or <h1> looks for an open <p> in
// button scope; an end tag looks for its element), so the work of a token
// grows with the depth of the page: under 500 nested <div>s, 5 MiB of
// "</p>" kept the parser busy for 20 s while every token was charged one
// unit. Real pages are a few dozen elements deep and pay a few percent
// more (the Go spec: 28,500 units instead of 27,000).
const scanPerUnit = 8

// scopeStopTags is defaultScopeStopTags[ns] without a map lookup for each
// element indexOfElementInScope passes: the elements that end the
// default, list item and button scopes in namespace ns.
func scopeStopTags(ns string) []a.Atom {
	switch ns {
	case "":
		return htmlScopeStopTags
	case "math":
		return mathScopeStopTags
	case "svg":
		return svgScopeStopTags
	}
	return nil
}

var (
	htmlScopeStopTags = defaultScopeStopTags[""]
	mathScopeStopTags = defaultScopeStopTags["math"]
	svgScopeStopTags  = defaultScopeStopTags["svg"]
)
