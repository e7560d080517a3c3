package htmlparse

import (
	"golang.org/x/net/html"
)

// The parser builds x/net/html's own tree: callers (readability, the
// writers) take *html.Node, so the copy shares every type with the
// library and keeps only the tree construction.
type (
	Node        = html.Node
	NodeType    = html.NodeType
	Attribute   = html.Attribute
	Token       = html.Token
	TokenType   = html.TokenType
	Tokenizer   = html.Tokenizer
	ParseOption func(p *parser)
)

const (
	ErrorNode    = html.ErrorNode
	TextNode     = html.TextNode
	DocumentNode = html.DocumentNode
	ElementNode  = html.ElementNode
	CommentNode  = html.CommentNode
	DoctypeNode  = html.DoctypeNode
	RawNode      = html.RawNode
	// scopeMarkerNode is x/net/html's unexported marker type (RawNode+1):
	// it only ever appears in the list of active formatting elements,
	// never in a tree handed out.
	scopeMarkerNode = html.RawNode + 1

	ErrorToken          = html.ErrorToken
	TextToken           = html.TextToken
	StartTagToken       = html.StartTagToken
	EndTagToken         = html.EndTagToken
	SelfClosingTagToken = html.SelfClosingTagToken
	CommentToken        = html.CommentToken
	DoctypeToken        = html.DoctypeToken
)

var scopeMarker = Node{Type: scopeMarkerNode}

// NewTokenizer and NewTokenizerFragment are x/net/html's.
var (
	NewTokenizer         = html.NewTokenizer
	NewTokenizerFragment = html.NewTokenizerFragment
)
