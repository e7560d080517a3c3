package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocfetch/ocfetch/search"
)

// TestSearchModelHints: when the search backend is misconfigured (its key
// refused, its URL not the search API, a redirect) the model is told that
// searching again will not help and to tell the user, who configures the
// backend — not to check a key file, a URL or a settings.yml it cannot
// reach; a rate limit without Retry-After asks it to wait, not to raise a
// plan.
func TestSearchModelHints(t *testing.T) {
	const misconfigured = "hint: the search backend is misconfigured (%s): searching again will not help; tell the user, who configures it"
	var status int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status == http.StatusFound {
			w.Header().Set("Location", "/elsewhere")
		}
		if status != 0 {
			w.WriteHeader(status)
		}
		io.WriteString(w, "not json")
	}))
	defer srv.Close()
	port := uint16(srv.Listener.Addr().(*net.TCPAddr).Port)
	be, err := search.NewSearXNG("http://127.0.0.1:" + strconv.Itoa(int(port)))
	if err != nil {
		t.Fatal(err)
	}
	ws := localWorkspace(t, port, "127.0.0.1:"+strconv.Itoa(int(port)))
	cs := connect(t, &Options{Root: ws.Root, Search: be}, clientSpec{})
	for _, tc := range []struct {
		status       int
		reason, hint string
	}{
		{http.StatusUnauthorized, "search_backend_failed", fmt.Sprintf(misconfigured, "it refused its credentials")},
		{http.StatusForbidden, "search_backend_failed", fmt.Sprintf(misconfigured, "it refused its credentials")},
		{http.StatusFound, "search_backend_failed", fmt.Sprintf(misconfigured, "it redirects")},
		{http.StatusNotFound, "search_backend_failed", fmt.Sprintf(misconfigured, "its URL is not the search API")},
		{0, "search_backend_failed", fmt.Sprintf(misconfigured, "its URL is not the search API")},
		{http.StatusTooManyRequests, "search_rate_limited", "hint: wait before searching again"},
		{http.StatusInternalServerError, "search_backend_failed", "hint: the backend failed; try again later"},
	} {
		status = tc.status
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: json.RawMessage(`{"query": "golang"}`)})
		if err != nil {
			t.Fatal(err)
		}
		got := text(res)
		if !res.IsError || !strings.HasPrefix(got, tc.reason+": ") {
			t.Errorf("HTTP %d: isError %v, text %q; want %s", tc.status, res.IsError, got, tc.reason)
			continue
		}
		if _, hint, _ := strings.Cut(got, "\n"); hint != tc.hint {
			t.Errorf("HTTP %d: hint line\n%q\nwant\n%q", tc.status, hint, tc.hint)
		}
	}
}
