package mcpserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestServerFetchDefaults: the server's User-Agent is ocfetch/VERSION with
// the project URL unless --user-agent says otherwise, and --max-length sets
// the window of a call that names none.
func TestServerFetchDefaults(t *testing.T) {
	uas := make(chan string, 4)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		uas <- r.UserAgent()
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("x", 500))
	}))
	t.Cleanup(origin.Close)
	u, _ := url.Parse(origin.URL)
	port, _ := strconv.ParseUint(u.Port(), 10, 16)
	tests := []struct {
		name   string
		opts   Options
		extra  string // more arguments
		wantUA string
		wantX  int
	}{
		{"defaults", Options{Version: "1.2.3"}, "", "ocfetch/1.2.3 (+https://github.com/ocfetch/ocfetch)", 500},
		{"flags", Options{Version: "1.2.3", UserAgent: "corp-agent/1", DefaultMaxLength: 100}, "", "corp-agent/1", 100},
		{"per-call max_bytes and timeout", Options{Version: "1.2.3"}, `, "max_bytes": 50, "timeout": 10`, "ocfetch/1.2.3 (+https://github.com/ocfetch/ocfetch)", 50},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := localWorkspace(t, uint16(port), fmt.Sprintf("127.0.0.1:%d", port))
			tc.opts.Root = ws.Root
			cs := connect(t, &tc.opts, clientSpec{protocol: protoLegacy})
			res := callFetch(t, cs, fmt.Sprintf(`{"url": %q, "format": "raw"%s}`, origin.URL, tc.extra))
			if res.IsError {
				t.Fatalf("call: %s", text(res))
			}
			if got := <-uas; got != tc.wantUA {
				t.Errorf("User-Agent %q; want %q", got, tc.wantUA)
			}
			var out Output
			remarshal(t, res.StructuredContent, &out)
			if wantCut := tc.extra != "" && strings.Contains(tc.extra, "max_bytes"); out.BodyTruncated != wantCut {
				t.Errorf("structured body_truncated = %v; want %v (the byte cap cut a 500-byte body to %d)", out.BodyTruncated, wantCut, tc.wantX)
			}
			if txt := text(res); !strings.Contains(txt, strings.Repeat("x", tc.wantX)) || strings.Contains(txt, strings.Repeat("x", tc.wantX+1)) {
				t.Errorf("content is not the first %d bytes:\n%.300s", tc.wantX, txt)
			}
		})
	}
}

// TestTextCarriesTitle: the text result has the title line ocfetch get
// prints.
func TestTextCarriesTitle(t *testing.T) {
	srv, port := pageServer(t)
	ws := localWorkspace(t, port, fmt.Sprintf("127.0.0.1:%d", port))
	cs := connect(t, &Options{Root: ws.Root}, clientSpec{protocol: protoLegacy})
	res := callFetch(t, cs, fmt.Sprintf(`{"url": %q}`, srv.URL))
	if lines := strings.Split(text(res), "\n"); len(lines) < 3 || lines[2] != "title: Hello page" {
		t.Errorf("text:\n%s\nwant its third line to be the title line", text(res))
	}
}
