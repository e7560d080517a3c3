package mcpserver_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocfetch/ocfetch/mcpserver"
)

// ExampleNewServer connects an SDK client to the server over in-memory
// transports and shows a refusal: an error result with the reason code
// first, not a protocol error.
func ExampleNewServer() {
	ctx := context.Background()
	root, err := os.MkdirTemp("", "ocfetch-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)

	ms, err := mcpserver.NewServer(&mcpserver.Options{Root: root})
	if err != nil {
		log.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := ms.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("tool:", tools.Tools[0].Name)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"url": "http://example.com/"}})
	if err != nil {
		log.Fatal(err)
	}
	reason, _, _ := strings.Cut(res.Content[0].(*mcp.TextContent).Text, ":")
	fmt.Println("isError:", res.IsError)
	fmt.Println("reason:", reason)
	// Output:
	// tool: fetch
	// isError: true
	// reason: https_required
}
