package mcpserver

//lint:file-ignore SA1019 MCP roots are deprecated by SEP-2577 (protocol 2026-07-28) but still functional, and DESIGN.md makes the client's first file:// root the workspace root.

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The ids of the input requests the server puts in a result on the multi
// round-trip protocol (2026-07-28 and later).
const (
	inputRoots    = "ocfetch.roots"
	inputApproval = "ocfetch.approval"
)

// protocolMultiRoundTrip is the first protocol version on which a server
// may not send requests of its own while serving a call: elicitation and
// roots travel as input requests in the call's result instead (SEP-2322).
const protocolMultiRoundTrip = "2026-07-28"

// clientCaps is what the server needs to know about the calling client.
type clientCaps struct {
	roots       bool // declares roots
	elicitation bool // declares form elicitation
}

// call is one tools/call as the server sees it.
type call struct {
	s       *server
	req     *mcp.CallToolRequest
	args    string
	caps    clientCaps
	session *mcp.ServerSession
	// protocol is the protocol version of the request ("" if unknown).
	protocol string
	// multiRoundTrip: questions go back as input requests in the result;
	// otherwise the server asks the client directly (ListRoots, Elicit).
	multiRoundTrip bool
	// state is the verified request state of a retried call, nil if none.
	state *callState
}

func (s *server) newCall(req *mcp.CallToolRequest) *call {
	c := &call{s: s, req: req, session: req.Session}
	if req.Params != nil {
		c.args = argsOf(req.Params.Arguments)
	} else {
		c.args = "{}"
	}
	if cc := req.ClientCapabilities(); cc != nil {
		c.caps.roots = cc.RootsV2 != nil
		if e := cc.Elicitation; e != nil {
			// {} means form, for clients older than 2025-11-25.
			c.caps.elicitation = e.Form != nil || e.URL == nil
		}
	}
	c.protocol = protocolVersion(req)
	c.multiRoundTrip = c.protocol >= protocolMultiRoundTrip
	if c.multiRoundTrip && req.Params != nil && req.Params.RequestState != "" {
		if st, ok := s.state.open(req.Params.RequestState, c.sealedArgs()); ok {
			c.state = &st
		}
	}
	return c
}

// protocolVersion is the protocol version of this request: the per-request
// _meta of the sessionless protocol, else what the session negotiated.
func protocolVersion(req *mcp.CallToolRequest) string {
	if req.Params != nil {
		if v, ok := req.Params.GetMeta()[mcp.MetaKeyProtocolVersion].(string); ok && v != "" {
			return v
		}
	}
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil {
			return p.ProtocolVersion
		}
	}
	return ""
}

// inputResponse returns the client's answer to the input request id, if
// the retried call carries one.
func (c *call) inputResponse(id string) (mcp.InputResponse, bool) {
	if c.req.Params == nil || c.req.Params.InputResponses == nil {
		return nil, false
	}
	r, ok := c.req.Params.InputResponses[id]
	return r, ok && r != nil
}

// inputRequired returns the result that asks the client for input and to
// call again, carrying st (bound to these arguments) as request state.
func (c *call) inputRequired(id string, ir mcp.InputRequest, st callState) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{id: ir},
		RequestState:  c.s.state.seal(st, c.sealedArgs()),
	}, nil
}

// sealedArgs is what a request state is bound to: the tool's name and the
// call's arguments, so that a state (and the call prepared under its
// nonce) is honoured only for a call of the same tool with the same
// arguments.
func (c *call) sealedArgs() string {
	name := ""
	if c.req.Params != nil {
		name = c.req.Params.Name
	}
	return name + "\x00" + c.args
}
