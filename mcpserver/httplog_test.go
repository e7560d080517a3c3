package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPLogsHoldNoSecrets: at the most verbose level, the diagnostics of
// the HTTP transport hold neither the bearer token (of good and bad
// requests) nor the path, query or body of a tool call.
func TestHTTPLogsHoldNoSecrets(t *testing.T) {
	srv, port := pageServer(t)
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			ws := localWorkspace(t, port)
			var logs syncBuffer
			addr := serveHTTPForTest(t, &Options{Root: ws.Root, Logger: newTestLogger(&logs)})
			user := &elicitor{action: "accept", decision: "once"}
			client := mcp.NewClient(&mcp.Implementation{Name: "log-test", Version: "v0"}, &mcp.ClientOptions{ElicitationHandler: user.handle})
			cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/", MaxRetries: -1, HTTPClient: authClient(testToken)}, &mcp.ClientSessionOptions{ProtocolVersion: proto})
			if err != nil {
				t.Fatal(err)
			}
			callFetch(t, cs, fmt.Sprintf(`{"url": %q, "method": "POST", "body": "secretbody"}`, srv.URL+"/secretpath?secretquery=1"))
			callFetch(t, cs, fmt.Sprintf(`{"url": %q, "bogus": 1}`, srv.URL+"/secretpath?secretquery=1"))
			cs.Close()
			wrong := "Bearer wrong-token-secretvalue-0123"
			req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader(`{"secretbody":1}`))
			req.Header.Set("Authorization", wrong)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
			out := logs.String()
			for _, s := range []string{testToken, "secretvalue", "secretpath", "secretquery", "secretbody"} {
				if strings.Contains(out, s) {
					t.Errorf("diagnostics hold %q:\n%s", s, out)
				}
			}
		})
	}
}
