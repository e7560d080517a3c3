package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/fetchargs"
	"github.com/ocfetch/ocfetch/internal/testsupport/testcpu"
	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/refusal"
)

// getSuccess is the --json object of a delivered response, field for
// field as the CLI contract has it (the last ones added when the output
// shapes became one, fetch.Output).
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
	BodyTruncated  bool              `json:"body_truncated"`
	Title          string            `json:"title"`
	MediaType      string            `json:"media_type"`
	StartIndex     int               `json:"start_index"`
	Remaining      int               `json:"remaining"`
	Notes          []string          `json:"notes"`
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
	diffKeys(t, keysOf(t, r.stdout), "ok", "status", "url", "headers", "content", "format", "truncated", "next_start_index", "bytes", "body_truncated",
		"media_type", "remaining") // added (fetch.Output)
	var got getSuccess
	decodeStrict(t, r.stdout, &got)
	want := getSuccess{
		OK: true, Status: 200, URL: s.url("/long"),
		Headers: map[string]string{"content-type": "text/plain; charset=utf-8", "content-length": "100"},
		Content: "012345678901234567890123456789", Format: "markdown", Truncated: true, NextStartIndex: 30, Bytes: 100,
		MediaType: "text/plain", Remaining: 70,
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

// TestGetJSONUsageError: a usage error found after the flags parse is,
// under --json, the one error object on stdout, with exit 2.
func TestGetJSONUsageError(t *testing.T) {
	root := t.TempDir()
	for _, args := range [][]string{
		{"get", "--json", "-X", "PUT", "https://example.com/"},
		{"get", "--json", "--max-length", "-1", "https://example.com/"},
		{"get", "--json", "-H", "X-Token secret-value", "https://example.com/"},
		{"get", "--json", "-o", "-", "https://example.com/"},
		{"get", "--json", "-o", filepath.Join(root, "missing", "f"), "https://example.com/"},
		{"get", "--json", "-o", root, "https://example.com/"},
		{"get", "--json", "https://a.example/", "https://b.example/"},
	} {
		r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, args...)...)
		r.want(t, exitUsage, nil, nil)
		if r.stderr != "" {
			t.Errorf("%v: stderr = %q; want nothing in --json mode", args, r.stderr)
		}
		var fail getFailure
		decodeStrict(t, r.stdout, &fail)
		if fail.OK || fail.Error.Reason != string(refusal.InvalidArguments) || fail.Error.Message == "" || fail.Error.Hint == "" {
			t.Errorf("%v: %+v; want ok false, invalid_arguments, a message and a hint", args, fail)
		}
		if strings.Contains(r.stdout, "secret-value") {
			t.Errorf("%v: the error repeats a header value: %s", args, r.stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".oc_chat")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a usage error wrote .oc_chat (stat: %v); want nothing written", err)
	}
}

func TestGetRefusals(t *testing.T) {
	s := newSite(t)
	closedPort := int(testnet.RefusedPort(t))

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
func localRoot2(t testing.TB, root string, port int, rule bool) {
	t.Helper()
	spec := testws.Spec{LocalPorts: []uint16{uint16(port)}}
	if rule {
		spec.Allow = []string{fmt.Sprintf("127.0.0.1:%d", port)}
	}
	testws.Write(t, wsOf(t, root), spec)
}

func denyRule(t *testing.T, root string, port int) {
	t.Helper()
	if r := ocfetch(t, cliOptions{}, "--root", root, "rules", "deny", "127.0.0.1:"+strconv.Itoa(port)); r.code != 0 {
		t.Fatalf("rules deny: %+v", r)
	}
}

func TestGetBadInput(t *testing.T) {
	root := newRoot(t)
	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), 64<<10+1), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"unknown flag", []string{"get", "--frobnicate", "https://example.com/"}, "unknown flag: --frobnicate"},
		{"missing URL", []string{"get"}, "missing URL"},
		{"empty URL", []string{"get", " "}, "missing URL"},
		{"two URLs", []string{"get", "https://a.example/", "https://b.example/"}, "2 arguments given; want 1"},
		{"header without colon", []string{"get", "-H", "X-Token secret", "https://example.com/"}, "header 1 (-H): no colon"},
		{"header with a bad name", []string{"get", "-H", "Bad Name: v", "https://example.com/"}, `"Bad Name" is not a valid header name`},
		{"header value with a newline", []string{"get", "-H", "X-A: 1\r\nX-B: 2", "https://example.com/"}, "the value of X-A has control characters"},
		{"header given twice", []string{"get", "-H", "X-A: 1", "-H", "x-a: 2", "https://example.com/"}, "X-A is given more than once"},
		{"max length -1", []string{"get", "--max-length", "-1", "https://example.com/"}, "--max-length must be from 1 to 1000000; got -1"},
		{"max length 0", []string{"get", "--max-length", "0", "https://example.com/"}, "--max-length must be from 1"},
		{"max length not a number", []string{"get", "--max-length", "ten", "https://example.com/"}, `invalid argument "ten" for "--max-length"`},
		{"start index -1", []string{"get", "--start-index", "-1", "https://example.com/"}, "--start-index must be from 0 to 2147483647; got -1"},
		{"start index too large", []string{"get", "--start-index", "99999999999", "https://example.com/"}, "--start-index must be from 0 to 2147483647; got 99999999999"},
		{"max bytes 0", []string{"get", "--max-bytes", "0", "https://example.com/"}, "--max-bytes must be 1 or more"},
		{"timeout abc", []string{"get", "--timeout", "abc", "https://example.com/"}, `invalid argument "abc" for "--timeout"`},
		{"timeout 0", []string{"get", "--timeout", "0s", "https://example.com/"}, "--timeout must be positive"},
		{"method PUT", []string{"get", "-X", "PUT", "https://example.com/"}, "-X must be GET or POST"},
		{"body with GET", []string{"get", "-X", "GET", "-d", "x", "https://example.com/"}, "-d sends a body, which needs POST"},
		{"body file missing", []string{"get", "-d", "@/nonexistent/body", "https://example.com/"}, "-d: open /nonexistent/body"},
		{"body file too large", []string{"get", "-d", "@" + big, "https://example.com/"}, "the body is larger than 64 KiB"},
		{"format", []string{"get", "--format", "pdf", "https://example.com/"}, "--format must be markdown, text or raw"},
		{"binary body", []string{"get", "-d", "\xff\xfe", "https://example.com/"}, "-d: the body is not valid UTF-8"},
		{"URL not UTF-8", []string{"get", "https://example.com/\xff"}, "the URL is not valid UTF-8"},
		{"header value not UTF-8", []string{"get", "-H", "X-A: \xff", "https://example.com/"}, "the value of X-A is not valid UTF-8"},
		{"bad profile", []string{"--profile", "lax", "get", "https://example.com/"}, `risk profile "lax" is not one of strict, standard, permissive`},
		{"root missing", []string{"--root", "/nonexistent/dir", "get", "https://example.com/"}, "/nonexistent/dir"},
		{"relative URL", []string{"get", "/just/a/path"}, "url must be absolute"},
		{"output to stdout", []string{"get", "-o", "-", "https://example.com/"}, "-o - is not supported"},
		{"output in a missing directory", []string{"get", "-o", "/nonexistent/dir/f", "https://example.com/"}, "directory /nonexistent/dir does not exist"},
		{"output to a device", []string{"get", "-o", os.DevNull, "https://example.com/"}, os.DevNull + " is a device, not a regular file"},
		{"unknown command", []string{"fetch", "https://example.com/"}, `unknown command "fetch"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, root)
			r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, tc.args...)...)
			r.want(t, exitUsage, nil, []string{"ocfetch: ", tc.msg, "\nhint: "})
			if lines := strings.Count(r.stderr, "\n"); lines != 2 {
				t.Errorf("stderr has %d lines; want 2 (the message and the hint):\n%s", lines, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q; want nothing", r.stdout)
			}
			if tc.msg == "url must be absolute" {
				return // a call the tool refused is audited, like any other
			}
			if d := cmp.Diff(before, snapshot(t, root)); d != "" {
				t.Errorf("a usage error changed the workspace (-before +after):\n%s", d)
			}
		})
	}
	t.Run("bad OCFETCH_DEBUG", func(t *testing.T) {
		t.Setenv("OCFETCH_DEBUG", "loud")
		r := ocfetch(t, cliOptions{}, "--root", root, "rules", "list")
		r.want(t, exitUsage, nil, []string{"OCFETCH_DEBUG", "hint: set OCFETCH_DEBUG to 0–4"})
	})
}

// TestCorruptFilesNameTheFile: a rules.json or settings.json that does not
// load refuses the call with exit 3 and names the file, and the broken file
// is left exactly as it was.
func TestCorruptFilesNameTheFile(t *testing.T) {
	s := newSite(t)
	tests := []struct {
		name   string
		file   func(root string) string
		data   string
		args   []string
		reason refusal.Code
	}{
		{"rules.json, get", func(r string) string { return wsOf(t, r).RulesPath() }, `{"schema_version": 1, "rules": [`, []string{"get", "--yes", "https://example.com/"}, refusal.RulesInvalid},
		{"rules.json, rules list", func(r string) string { return wsOf(t, r).RulesPath() }, `[]`, []string{"rules", "list"}, refusal.RulesInvalid},
		{"rules.json, rules allow", func(r string) string { return wsOf(t, r).RulesPath() }, `{"schema_version": 2, "rules": []}`, []string{"rules", "allow", "example.com"}, refusal.RulesInvalid},
		{"rules.json, rules remove", func(r string) string { return wsOf(t, r).RulesPath() }, "not json", []string{"rules", "remove", "example.com"}, refusal.RulesInvalid},
		{"settings.json, get", func(r string) string { return wsOf(t, r).SettingsPath() }, `{"schema_version": 1, "risk_profile": "yolo"}`, []string{"get", s.url("/")}, refusal.SettingsInvalid},
		{"settings.json, local show", func(r string) string { return wsOf(t, r).SettingsPath() }, `{`, []string{"local", "show"}, refusal.SettingsInvalid},
		{"local_fetch.json, local show", func(r string) string { return wsOf(t, r).LocalFetchPath() }, `{"schema_version": 1, "ports": [true]}`, []string{"local", "show"}, refusal.LocalAllowlistInvalid},
		{"local_fetch.json, local allow", func(r string) string { return wsOf(t, r).LocalFetchPath() }, `{"ports": [3000]}`, []string{"local", "allow", "3000"}, refusal.LocalAllowlistInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := newRoot(t)
			path := tc.file(root)
			writeFile(t, path, tc.data)
			r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, tc.args...)...)
			r.want(t, exitRefused, nil, []string{"ocfetch: " + string(tc.reason) + ": ", path})
			got, _ := os.ReadFile(path)
			if string(got) != tc.data {
				t.Errorf("%s changed to %q; want it untouched", path, got)
			}
		})
	}
}

// TestRefusedCallWritesOnlyItsAuditLine: whatever a refused call was
// refused for, the only change under .oc_chat/ is one new audit line that
// holds neither the path nor the query.
func TestRefusedCallWritesOnlyItsAuditLine(t *testing.T) {
	s := newSite(t)
	tests := []struct {
		name  string
		setup func(t *testing.T, root string)
		args  []string
	}{
		{"not approved", func(t *testing.T, root string) { localRoot2(t, root, s.port, false) }, []string{"--profile", "permissive", "get", s.url("/secret-path?token=hunter2")}},
		{"denied by rule", func(t *testing.T, root string) { localRoot2(t, root, s.port, false); denyRule(t, root, s.port) }, []string{"--profile", "permissive", "get", "--yes", s.url("/secret-path?token=hunter2")}},
		{"strict profile, --yes", func(t *testing.T, root string) {}, []string{"--profile", "strict", "get", "--yes", "https://example.com/secret-path?token=hunter2"}},
		{"https required", func(t *testing.T, root string) {}, []string{"get", "--yes", "http://example.com/secret-path?token=hunter2"}},
		{"port not allowed", func(t *testing.T, root string) { localRoot2(t, root, 1, false) }, []string{"--profile", "permissive", "get", "--yes", s.url("/secret-path?token=hunter2")}},
		{"no allowlist, empty workspace", func(t *testing.T, root string) {}, []string{"--profile", "permissive", "get", "--yes", s.url("/secret-path?token=hunter2")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := newRoot(t)
			tc.setup(t, root)
			before := snapshot(t, root)
			r := ocfetch(t, cliOptions{}, append([]string{"--root", root}, tc.args...)...)
			if r.code != exitRefused {
				t.Fatalf("exit %d; want 3\n%s", r.code, r.stderr)
			}
			after := snapshot(t, root)
			auditRel := filepath.Join(".oc_chat", "audit.jsonl")
			newLines := strings.TrimPrefix(after[auditRel], before[auditRel])
			if strings.Count(newLines, "\n") != 1 || !strings.HasSuffix(newLines, "\n") {
				t.Errorf("new audit text = %q; want exactly one line", newLines)
			}
			if strings.Contains(newLines, "secret-path") || strings.Contains(newLines, "hunter2") {
				t.Errorf("audit line %q holds the path or query", newLines)
			}
			delete(before, auditRel)
			delete(after, auditRel)
			if d := cmp.Diff(before, after); d != "" {
				t.Errorf("a refused call changed more than the audit log (-before +after):\n%s", d)
			}
			if strings.Contains(r.stderr, "secret-path") || strings.Contains(r.stderr, "hunter2") {
				t.Errorf("the refusal message %q holds the path or query", r.stderr)
			}
		})
	}
}

func TestGetTerminalApproval(t *testing.T) {
	s := newSite(t)
	root := newRoot(t)
	localRoot2(t, root, s.port, false)

	// "always": the call runs and the rule is saved ...
	r := ocfetch(t, cliOptions{interactive: true, stdin: "always\n"}, "--root", root, "--profile", "permissive", "get", s.url("/"))
	r.want(t, exitOK, []string{"HTTP 200 OK"}, []string{"fetch wants GET 127.0.0.1", "[o]nce, [a]lways", "[d]eny? [default: deny]",
		"saving the rule allow 127.0.0.1:" + strconv.Itoa(s.port) + " in " + wsOf(t, root).RulesPath()})
	// ... so the next call, with nobody to ask, is covered.
	r = ocfetch(t, cliOptions{}, "--root", root, "--profile", "permissive", "get", s.url("/"))
	r.want(t, exitOK, []string{"HTTP 200 OK"}, nil)
	r = ocfetch(t, cliOptions{}, "--root", root, "rules", "list")
	r.want(t, exitOK, []string{"allow     127.0.0.1  " + strconv.Itoa(s.port)}, nil)

	// A typo is asked again; Enter takes the default, deny.
	root3 := newRoot(t)
	localRoot2(t, root3, s.port, false)
	r = ocfetch(t, cliOptions{interactive: true, stdin: "oops\n\n"}, "--root", root3, "--profile", "permissive", "get", s.url("/"))
	r.want(t, exitRefused, nil, []string{"please answer o (once), a (always) or d (deny)", "not_approved", "denied by the user"})

	// "once" saves nothing.
	root2 := newRoot(t)
	localRoot2(t, root2, s.port, false)
	r = ocfetch(t, cliOptions{interactive: true, stdin: "o\n"}, "--root", root2, "--profile", "permissive", "get", s.url("/"))
	r.want(t, exitOK, []string{"HTTP 200 OK"}, nil)
	if _, err := os.Stat(wsOf(t, root2).RulesPath()); !os.IsNotExist(err) {
		t.Errorf("answering once wrote %s (stat: %v)", wsOf(t, root2).RulesPath(), err)
	}
}

// TestGetPublicHTTPS runs the public path end to end: a resolver that
// answers a public address for example.com and a dial that connects it to
// a loopback TLS server.
func TestGetPublicHTTPS(t *testing.T) {
	pub, egressOpts := publicSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "public hello from "+r.Host)
	}))
	o := cliOptions{egress: egressOpts}
	root := newRoot(t)

	r := ocfetch(t, o, "--root", root, "get", "https://example.com/")
	r.want(t, exitRefused, nil, []string{"not_approved", "ocfetch rules allow example.com:443", "or pass --yes to approve this call once"})
	if dialed := pub.Dials.List(); len(dialed) != 0 {
		t.Fatalf("an unapproved call dialed %v", dialed)
	}
	r = ocfetch(t, o, "--root", root, "get", "--yes", "https://example.com/")
	r.want(t, exitOK, []string{"HTTP 200 OK", "public hello from example.com"}, nil)

	r = ocfetch(t, o, "--root", root, "--profile", "strict", "get", "--yes", "https://example.com/")
	r.want(t, exitRefused, nil, []string{"not_approved", "profile strict accepts saved rules only"})

	ocfetch(t, o, "--root", root, "rules", "allow", "example.com").want(t, exitOK, []string{"added: allow example.com:443"}, nil)
	r = ocfetch(t, o, "--root", root, "--profile", "strict", "get", "--json", "https://example.com/")
	r.want(t, exitOK, []string{`"ok": true`, `"status": 200`}, nil)

	// A wildcard deny covers subdomains, not the apex.
	ocfetch(t, o, "--root", root, "rules", "deny", "*.example.com").want(t, exitOK, nil, nil)
	ocfetch(t, o, "--root", root, "get", "--yes", "https://www.example.com/").want(t, exitRefused, nil, []string{"denied_by_rule"})
	ocfetch(t, o, "--root", root, "get", "https://example.com/").want(t, exitOK, nil, nil)

	for _, addr := range pub.Dials.List() {
		if addr != "93.184.216.34:443" {
			t.Errorf("dialed %s; want only the resolved public address", addr)
		}
	}
}

// eraseLine is the terminal's "erase from the cursor to the end of the
// line", with which the progress bar ends every redraw.
const eraseLine = "\033[K"

func TestGetOutputFile(t *testing.T) {
	s := newSite(t)
	root := localRoot(t, s)
	dir := t.TempDir()
	file := filepath.Join(dir, "body.bin")

	r := ocfetch(t, cliOptions{progress: true}, "--root", root, "--profile", "permissive", "get", "--format", "raw", "-o", file, s.url("/binary"))
	r.want(t, exitOK, []string{"HTTP 200 OK", fmt.Sprintf("wrote %d bytes to %s", 2<<20, file)}, []string{"=] 100%     2.0 MiB / 2.0 MiB  ", " in 0:0"})
	if !strings.HasSuffix(r.stderr, eraseLine+"\n") {
		t.Errorf("stderr = %q; want the bar's last line erased to its end and ended", r.stderr)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, binaryBody()) {
		t.Errorf("%s: %d bytes, not the body as served (%d bytes)", file, len(got), 2<<20)
	}

	// Of unknown length: the bytes so far.
	r = ocfetch(t, cliOptions{progress: true}, "--root", root, "--profile", "permissive", "get", "-o", file, s.url("/binary?chunked=1"))
	r.want(t, exitOK, nil, []string{"\r   2.0 MiB  ", "/s     in 0:0", eraseLine + "\n"})

	// Below the threshold, or off a terminal, no bar.
	r = ocfetch(t, cliOptions{progress: true}, "--root", root, "--profile", "permissive", "get", "-o", file, s.url("/"))
	r.want(t, exitOK, nil, nil)
	if r.stderr != "" {
		t.Errorf("stderr = %q; want no progress bar for a small body", r.stderr)
	}
	if got, _ := os.ReadFile(file); !strings.Contains(string(got), "<title>Harbour</title>") {
		t.Errorf("%s = %q; want the raw HTML", file, got)
	}

	// After a same-target redirect, the file holds the final body only.
	hop := filepath.Join(dir, "hop.html")
	ocfetch(t, cliOptions{}, "--root", root, "--profile", "permissive", "get", "-o", hop, s.url("/hop")).want(t, exitOK, nil, nil)
	if got, _ := os.ReadFile(hop); string(got) != sitePage {
		t.Errorf("%s = %q; want the page the redirect led to", hop, got)
	}
	os.Remove(hop)

	// A body over --max-bytes writes nothing: no partial file.
	cut := filepath.Join(dir, "cut.bin")
	r = ocfetch(t, cliOptions{}, "--root", root, "--profile", "permissive", "get", "--max-bytes", "1000", "-o", cut, s.url("/binary"))
	r.want(t, exitFailed, nil, []string{"response_too_large", "raise --max-bytes"})
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%s holds %d entries after a cut body; want only body.bin", dir, len(entries))
	}
	// Its audit line records the refusal, not "ok, 200": status is left
	// out, as for every refusal after the response (content_too_complex).
	r = ocfetch(t, cliOptions{}, "--root", root, "audit", "--tail", "1", "--json")
	r.want(t, exitOK, nil, nil)
	var e audit.Entry
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil {
		t.Fatalf("audit --json: %v\n%s", err, r.stdout)
	}
	if e.Outcome != string(refusal.ResponseTooLarge) || e.Status != 0 || e.Decision != audit.DecisionAllow || e.Summary != "GET 127.0.0.1" {
		t.Errorf("audit line of the cut -o body = %+v; want decision allow, outcome response_too_large, no status", e)
	}

	// A refused call writes no file either.
	refused := filepath.Join(dir, "refused.bin")
	ocfetch(t, cliOptions{}, "--root", root, "get", "-o", refused, s.url("/binary")).want(t, exitRefused, nil, nil)
	if _, err := os.Stat(refused); !os.IsNotExist(err) {
		t.Errorf("a refused call created %s", refused)
	}
}

func TestGetDataFromFile(t *testing.T) {
	s := newSite(t)
	root := localRoot(t, s)
	body := filepath.Join(t.TempDir(), "body.json")
	writeFile(t, body, `{"q":1}`)
	r := ocfetch(t, cliOptions{}, "--root", root, "--profile", "permissive", "get", "-d", "@"+body, s.url("/echo"))
	r.want(t, exitOK, []string{`POST {"q":1}`}, nil)
	r = ocfetch(t, cliOptions{stdin: "from stdin"}, "--root", root, "--profile", "permissive", "get", "-d", "@-", s.url("/echo"))
	r.want(t, exitOK, []string{"POST from stdin"}, nil)
	reqs := s.requests()
	if len(reqs) != 2 || reqs[0].body != `{"q":1}` || reqs[1].body != "from stdin" || reqs[0].method != "POST" {
		t.Errorf("server saw %+v; want two POSTs with the file's and stdin's body", reqs)
	}
}

func TestParseHeader(t *testing.T) {
	tests := []struct {
		in          string
		name, value string
		ok          bool
	}{
		{"X-A: 1", "X-A", "1", true},
		{"X-A:1", "X-A", "1", true},
		{"  X-A :  spaced value  ", "X-A", "spaced value", true},
		{"X-Empty:", "X-Empty", "", true},
		{"Authorization: Bearer a:b:c", "Authorization", "Bearer a:b:c", true},
		{"no colon", "", "", false},
		{": value", "", "", false},
		{"Bad Name: v", "", "", false},
		{"X-A: a\nb", "", "", false},
		{"X-Ä: v", "", "", false},
	}
	for _, tc := range tests {
		name, value, err := parseHeader(tc.in)
		if (err == nil) != tc.ok || name != tc.name || value != tc.value {
			t.Errorf("parseHeader(%q) = %q, %q, %v; want %q, %q, ok %v", tc.in, name, value, err, tc.name, tc.value, tc.ok)
		}
	}
}

// FuzzParseHeader: whatever is typed after -H ("NAME:VALUE"), an accepted
// header has a token name and a value without control characters, and an
// error never quotes the value (it may be a secret: a token, a cookie).
func FuzzParseHeader(f *testing.F) {
	for _, seed := range [][2]string{
		{"X-A", " 1"},                  // plain
		{"X-A", ""},                    // empty value
		{"Host", " evil"},              // a name the fetch tool refuses later
		{"X-A", " 1\r\nX-B: 2"},        // header injection
		{"", ""},                       // no name
		{"\x00", " \x00"},              // NULs
		{"X-A", " secretvalue\x7f"},    // DEL in the value
		{"Ü", " v"},                    // non-ASCII name
		{"X-A", " \xff"},               // invalid UTF-8 in the value
		{strings.Repeat("a", 80), "x"}, // long name
	} {
		f.Add(seed[0], seed[1])
	}
	const secret = "S3CR3T"
	f.Fuzz(func(t *testing.T, name, value string) {
		if strings.Contains(name, ":") {
			return // the first colon ends the name
		}
		name, value, err := parseHeader(name + ":" + value + secret)
		if err != nil {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q quotes the value", err)
			}
			return
		}
		if name == "" || strings.ContainsAny(name, " \t\r\n:") {
			t.Errorf("accepted name %q", name)
		}
		if strings.ContainsAny(value, "\r\n\x00") || !utf8.ValidString(value) || !strings.HasSuffix(value, secret) {
			t.Errorf("accepted value %q", value)
		}
	})
}

// FuzzFetchArgs: whatever URL, header and body the flags carry, the
// arguments document get builds is valid JSON that decodes back to exactly
// those values — no flag value can add, drop or alter a field — or the
// flags are refused as a usage error.
func FuzzFetchArgs(f *testing.F) {
	for _, seed := range [][3]string{
		{"https://example.com/", "X-A: 1", "body"},                      // plain
		{`https://example.com/", "method": "POST`, "X-A: 1", ""},        // a quote trying to add a field
		{"https://example.com/\u2028\u2029", "X-A: \u00e9", "\x00\x01"}, // JS line separators, NUL
		{"https://ex\xffample.com/", "X-A: \xff", "\xff\xfe"},           // invalid UTF-8
		{"https://example.com/?q=<script>&a=b", "Cookie: a=b; c=d", "{\"q\":1}"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, rawURL, header, body string) {
		cmd := newGetCmd(newApp(strings.NewReader(""), io.Discard, io.Discard))
		args := []string{"-H", header, "-d", body, rawURL}
		if strings.HasPrefix(body, "@") {
			args[3] = "x" // not a file reference
			body = "x"
		}
		if err := cmd.ParseFlags(args[:4]); err != nil {
			return
		}
		var flags getFlags
		flags.method, flags.data, flags.headers = "", body, []string{header}
		flags.format, flags.maxLength, flags.maxBytes, flags.timeout = "markdown", 20000, 1<<20, time.Second
		got, err := buildFetchArgs(newApp(strings.NewReader(""), io.Discard, io.Discard), cmd, rawURL, flags)
		if err != nil {
			var e *exitError
			if !errors.As(err, &e) || e.code != exitUsage {
				t.Fatalf("buildFetchArgs error %v; want a usage error", err)
			}
			return
		}
		var back fetchargs.Document
		dec := json.NewDecoder(strings.NewReader(got))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&back); err != nil {
			t.Fatalf("arguments %q do not decode: %v", got, err)
		}
		name, value, _ := parseHeader(header)
		if back.URL != rawURL || back.Body == nil || *back.Body != body || back.Headers[name] != value || len(back.Headers) != 1 || back.Method != "POST" {
			t.Errorf("arguments %q decode to %+v; want url %q, body %q, header %q: %q, POST", got, back, rawURL, body, name, value)
		}
	})
}

// TestGetInterruptedAtPrompt: cancelling the context (SIGINT) while the
// terminal prompt waits for a line ends the call at once, exit 130.
func TestGetInterruptedAtPrompt(t *testing.T) {
	s := newSite(t)
	root := newRoot(t)
	localRoot2(t, root, s.port, false)
	pr, pw := io.Pipe()
	defer pw.Close() // ends the abandoned read, for goleak
	var stdout, stderr testio.SyncBuffer
	a := newApp(pr, &stdout, &stderr)
	a.interactive = func() bool { return true }
	a.layers = testLayers(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, a, []string{"--root", root, "--profile", "permissive", "get", s.url("/")})
	}()
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(stderr.String(), "[d]eny?"); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no prompt; stderr:\n%s", stderr.String())
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != exitInterrupted || !strings.Contains(stderr.String(), "ocfetch: interrupted") {
			t.Errorf("exit %d, stderr %q; want 130 and 'interrupted'", code, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("get still waits for a line after the context was cancelled")
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("the site got %d requests; want none", n)
	}
}

// BenchmarkGetOutputFile is one delivered 2 MiB body written to a file
// with -o, in local mode: the whole CLI path through the download
// package's transport and atomic file. cpu-ns/op is the process's CPU
// time (the loopback site's included), beside the wall time.
func BenchmarkGetOutputFile(b *testing.B) {
	s := startSite()
	defer s.Close()
	root := newUntrustedRoot(b)
	trustRoot(b, root)
	localRoot2(b, root, s.port, true)
	file := filepath.Join(b.TempDir(), "body.bin")
	start := testcpu.Now()
	benchGet(b, exitOK, "--root", root, "--profile", "permissive", "get", "--format", "raw", "-o", file, s.url("/binary"))
	b.ReportMetric(float64(testcpu.Now()-start)/float64(b.N), "cpu-ns/op")
}

// TestGetOutputWriteFailure: a body get -o could not write is a failure
// of the call, exit 4 as README's reason table says of internal_error
// (get has no exit 1), and under --json the object says internal_error.
func TestGetOutputWriteFailure(t *testing.T) {
	for _, jsonMode := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", jsonMode), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				os.RemoveAll(dir) // the directory -o writes in goes away during the call
				io.WriteString(w, "body")
			}))
			t.Cleanup(srv.Close)
			s := &site{Server: srv, port: srv.Listener.Addr().(*net.TCPAddr).Port}
			root := localRoot(t, s)
			args := []string{"--root", root, "--profile", "permissive", "get", "-o", filepath.Join(dir, "body.bin"), s.url("/")}
			if jsonMode {
				args = append(args, "--json")
			}
			r := ocfetch(t, cliOptions{}, args...)
			if !jsonMode {
				r.want(t, exitFailed, nil, []string{"body.bin"})
				return
			}
			r.want(t, exitFailed, nil, nil)
			var out errorJSON
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.OK || out.Error.Reason != refusal.InternalError {
				t.Errorf("stdout %q (%v); want the error object, reason internal_error", r.stdout, err)
			}
		})
	}
}

// TestGetJSONInterrupted: Ctrl-C (the context cancelled) during get
// --json still prints the one object --json promises, reason cancelled,
// and exits 130 as a shell reports an interrupted command.
func TestGetJSONInterrupted(t *testing.T) {
	s := newSite(t)
	root := localRoot(t, s)
	var stdout, stderr testio.SyncBuffer
	a := newApp(strings.NewReader(""), &stdout, &stderr)
	a.interactive = func() bool { return false }
	a.layers = testLayers(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, a, []string{"--root", root, "--profile", "permissive", "get", "--json", s.url("/slow")})
	}()
	for deadline := time.Now().Add(5 * time.Second); len(s.requests()) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the request never reached the site")
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != exitInterrupted {
			t.Errorf("exit %d; want 130", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("get did not end after the context was cancelled")
	}
	var out errorJSON
	if err := json.Unmarshal([]byte(stdout.String()), &out); err != nil || out.OK || out.Error.Reason != refusal.Cancelled {
		t.Errorf("stdout %q (%v); want one error object, reason cancelled", stdout.String(), err)
	}
	if stderr.String() != "" {
		t.Errorf("stderr %q; want nothing under --json", stderr.String())
	}
}
