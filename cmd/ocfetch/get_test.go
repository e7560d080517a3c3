package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/refusal"
)

// getSuccess is the --json object of a delivered response, field for
// field as the CLI contract has it.
type getSuccess struct {
	OK             bool              `json:"ok"`
	Status         int               `json:"status"`
	URL            string            `json:"url"`
	Headers        map[string]string `json:"headers"`
	Content        string            `json:"content"`
	Format         string            `json:"format"`
	Truncated      bool              `json:"truncated"`
	NextStartIndex int               `json:"next_start_index"`
	Bytes          int64             `json:"bytes"`
}

// getFailure is the --json object of a refusal or failure.
type getFailure struct {
	OK    bool `json:"ok"`
	Error struct {
		Reason  string `json:"reason"`
		Message string `json:"message"`
		Hint    string `json:"hint"`
	} `json:"error"`
}

func TestGetLocalMode(t *testing.T) {
	s := newSite(t)
	root := localRoot(t, s)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{
			name:   "markdown page",
			args:   []string{"get", s.url("/")},
			stdout: []string{"HTTP 200 OK\n", "url: " + s.url("/") + "\n", "content-type: text/html; charset=utf-8\n", "title: Harbour\n", "The gate opens at **six**."},
		},
		{
			name:   "text format",
			args:   []string{"get", "--format", "text", s.url("/")},
			stdout: []string{"The gate opens at six."},
		},
		{
			name:   "a 404 is a delivered response",
			args:   []string{"get", s.url("/missing")},
			stdout: []string{"HTTP 404 Not Found\n"},
		},
		{
			name:   "same-target redirect is followed",
			args:   []string{"get", s.url("/hop")},
			stdout: []string{"HTTP 200 OK\n", "url: " + s.url("/page") + "\n"},
		},
		{
			name:   "truncated content says how to read on",
			args:   []string{"get", "--max-length", "30", s.url("/long")},
			stdout: []string{"\n012345678901234567890123456789\n", "… 70 more characters: --start-index 30\n"},
		},
		{
			name:   "start index reads on",
			args:   []string{"get", "--max-length", "30", "--start-index", "90", s.url("/long")},
			stdout: []string{"\n0123456789\n"},
		},
		{
			name:   "post with a body and a header",
			args:   []string{"get", "-X", "post", "-d", "hello=1", "-H", "X-Test: yes", s.url("/echo")},
			stdout: []string{"POST hello=1 yes"},
		},
		{
			name:   "-d implies POST",
			args:   []string{"get", "-d", "x", s.url("/echo")},
			stdout: []string{"POST x "},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--root", root, "--profile", "permissive"}, tc.args...)
			r := ocfetch(t, cliOptions{}, args...)
			r.want(t, tc.code, tc.stdout, tc.stderr)
			if r.stderr != "" {
				t.Errorf("stderr = %q; want nothing on success", r.stderr)
			}
		})
	}
}

func TestGetJSONShape(t *testing.T) {
	s := newSite(t)
	root := localRoot(t, s)

	r := ocfetch(t, cliOptions{}, "--root", root, "--profile", "permissive", "get", "--json", "--max-length", "30", s.url("/long"))
	r.want(t, exitOK, nil, nil)
	diffKeys(t, keysOf(t, r.stdout), "ok", "status", "url", "headers", "content", "format", "truncated", "next_start_index", "bytes")
	var got getSuccess
	decodeStrict(t, r.stdout, &got)
	want := getSuccess{
		OK: true, Status: 200, URL: s.url("/long"),
		Headers: map[string]string{"content-type": "text/plain; charset=utf-8", "content-length": "100"},
		Content: "012345678901234567890123456789", Format: "markdown", Truncated: true, NextStartIndex: 30, Bytes: 100,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("get --json (-want +got):\n%s", d)
	}

	// A refusal: one object, ok false, reason and message; nothing on
	// stderr, exit 3.
	r = ocfetch(t, cliOptions{}, "--root", root, "get", "--json", s.url("/"))
	r.want(t, exitRefused, nil, nil)
	if r.stderr != "" {
		t.Errorf("stderr = %q; want nothing in --json mode", r.stderr)
	}
	diffKeys(t, keysOf(t, r.stdout), "ok", "error")
	var fail getFailure
	decodeStrict(t, r.stdout, &fail)
	if fail.OK || fail.Error.Reason != string(refusal.LocalProfileNotPermissive) || fail.Error.Message == "" || fail.Error.Hint == "" {
		t.Errorf("get --json refusal = %+v; want ok false, reason local_profile_not_permissive, a message and a hint", fail)
	}
}

func TestGetRefusals(t *testing.T) {
	s := newSite(t)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := closed.Addr().(*net.TCPAddr).Port
	closed.Close()

	tests := []struct {
		name   string
		setup  func(t *testing.T, root string)
		opts   cliOptions
		args   []string
		code   int
		reason refusal.Code
		hint   string
	}{
		{
			name: "uncovered target, nobody to ask",
			setup: func(t *testing.T, root string) {
				localRoot2(t, root, s.port, false)
			},
			args: []string{"--profile", "permissive", "get", s.url("/")}, code: exitRefused, reason: refusal.NotApproved,
			hint: fmt.Sprintf("ocfetch rules allow 127.0.0.1:%d", s.port),
		},
		{
			name:  "deny rule wins over --yes",
			setup: func(t *testing.T, root string) { localRoot2(t, root, s.port, false); denyRule(t, root, s.port) },
			args:  []string{"--profile", "permissive", "get", "--yes", s.url("/")}, code: exitRefused, reason: refusal.DeniedByRule,
			hint: fmt.Sprintf("ocfetch rules remove 127.0.0.1:%d", s.port),
		},
		{
			name:  "--yes does not open local mode",
			setup: func(t *testing.T, root string) {},
			args:  []string{"--profile", "permissive", "get", "--yes", s.url("/")}, code: exitRefused, reason: refusal.LocalAllowlistMissing,
		},
		{
			name:  "local mode needs permissive",
			setup: func(t *testing.T, root string) { localRoot2(t, root, s.port, true) },
			args:  []string{"get", "--yes", s.url("/")}, code: exitRefused, reason: refusal.LocalProfileNotPermissive,
		},
		{
			name:  "the user denies at the terminal",
			setup: func(t *testing.T, root string) { localRoot2(t, root, s.port, false) },
			opts:  cliOptions{interactive: true, stdin: "d\n"},
			args:  []string{"--profile", "permissive", "get", s.url("/")}, code: exitRefused, reason: refusal.NotApproved,
		},
		{
			name: "public http", setup: func(t *testing.T, root string) {},
			args: []string{"get", "--yes", "http://example.com/"}, code: exitRefused, reason: refusal.HTTPSRequired,
		},
		{
			name: "credentials in the URL", setup: func(t *testing.T, root string) {},
			args: []string{"get", "--yes", "https://user:pw@example.com/"}, code: exitRefused, reason: refusal.CredentialsInURL,
		},
		{
			name: "file URL", setup: func(t *testing.T, root string) {},
			args: []string{"get", "file:///etc/passwd"}, code: exitRefused, reason: refusal.SchemeNotAllowed,
		},
		{
			name: "private address", setup: func(t *testing.T, root string) {},
			args: []string{"get", "--yes", "https://10.0.0.1/"}, code: exitRefused, reason: refusal.AddressNotPublic,
		},
		{
			name:  "connection refused is a failure",
			setup: func(t *testing.T, root string) { localRoot2(t, root, closedPort, true) },
			args:  []string{"--profile", "permissive", "get", fmt.Sprintf("http://127.0.0.1:%d/", closedPort)}, code: exitFailed, reason: refusal.ConnectionFailed,
		},
		{
			name:  "timeout is a failure",
			setup: func(t *testing.T, root string) { localRoot2(t, root, s.port, true) },
			args:  []string{"--profile", "permissive", "get", "--timeout", "200ms", s.url("/slow")}, code: exitFailed, reason: refusal.Timeout,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := newRoot(t)
			tc.setup(t, root)
			args := append([]string{"--root", root}, tc.args...)
			r := ocfetch(t, tc.opts, args...)
			prefix := "ocfetch: " + string(tc.reason) + ": "
			r.want(t, tc.code, nil, []string{prefix, tc.hint})
			if tc.hint != "" && !strings.Contains(r.stderr, "\nhint: ") {
				t.Errorf("stderr has no hint line:\n%s", r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q; want nothing for a refusal", r.stdout)
			}

			// The same call with --json: one object on stdout, the same
			// reason and exit code, nothing on stderr.
			var jsonArgs []string
			for _, a := range args {
				jsonArgs = append(jsonArgs, a)
				if a == "get" {
					jsonArgs = append(jsonArgs, "--json")
				}
			}
			r = ocfetch(t, tc.opts, jsonArgs...)
			if r.code != tc.code || (r.stderr != "" && !tc.opts.interactive) {
				t.Errorf("--json: exit %d, stderr %q; want exit %d, no stderr", r.code, r.stderr, tc.code)
			}
			var fail getFailure
			decodeStrict(t, r.stdout, &fail)
			if fail.OK || fail.Error.Reason != string(tc.reason) || fail.Error.Message == "" {
				t.Errorf("--json = %+v; want ok false, reason %s and a message", fail, tc.reason)
			}
		})
	}
}

// localRoot2 makes root's allowlist admit port and, if rule, saves an allow
// rule for 127.0.0.1:port.
func localRoot2(t *testing.T, root string, port int, rule bool) {
	t.Helper()
	ws := wsOf(t, root)
	writeFile(t, ws.LocalFetchPath(), fmt.Sprintf(`{"schema_version": 1, "ports": [%d]}`, port))
	if rule {
		writeFile(t, ws.RulesPath(), fmt.Sprintf(`{"schema_version": 1, "rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "127.0.0.1", "port": %d}, "decision": "allow"}]}`, port))
	}
}

func denyRule(t *testing.T, root string, port int) {
	t.Helper()
	if r := ocfetch(t, cliOptions{}, "--root", root, "rules", "deny", "127.0.0.1:"+strconv.Itoa(port)); r.code != 0 {
		t.Fatalf("rules deny: %+v", r)
	}
}
