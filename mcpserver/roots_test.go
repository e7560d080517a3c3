package mcpserver

//lint:file-ignore SA1019 MCP roots are deprecated by SEP-2577 (protocol 2026-07-28) but still functional, and DESIGN.md makes the client's first file:// root the workspace root.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestWorkspaceRoot checks the one resolution of the workspace root: --root,
// else the client's first file:// root, else the current directory. The
// workspace in use is seen by where the rule that allows the call lives and
// where the audit line is written.
func TestWorkspaceRoot(t *testing.T) {
	srv, port := pageServer(t)
	allow := fmt.Sprintf("127.0.0.1:%d", port)
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			tests := []struct {
				name string
				// setup returns the options, the client and the workspace
				// that must be used.
				setup func(t *testing.T) (*Options, clientSpec, string)
			}{
				{"--root wins over client roots", func(t *testing.T) (*Options, clientSpec, string) {
					want := localWorkspace(t, port, allow)
					other := localWorkspace(t, port)
					return &Options{Root: want.Root}, clientSpec{protocol: proto, roots: []*mcp.Root{fileRoot(other.Root)}}, want.Root
				}},
				{"first file root", func(t *testing.T) (*Options, clientSpec, string) {
					want := localWorkspace(t, port, allow)
					second := localWorkspace(t, port)
					t.Chdir(localWorkspace(t, port).Root)
					return nil, clientSpec{protocol: proto, roots: []*mcp.Root{
						{URI: "https://example.com/repo"},
						fileRoot(want.Root),
						fileRoot(second.Root),
					}}, want.Root
				}},
				{"file root with localhost host", func(t *testing.T) (*Options, clientSpec, string) {
					want := localWorkspace(t, port, allow)
					t.Chdir(localWorkspace(t, port).Root)
					return nil, clientSpec{protocol: proto, roots: []*mcp.Root{{URI: "file://localhost" + filepath.ToSlash(want.Root)}}}, want.Root
				}},
				{"no roots capability: current directory", func(t *testing.T) (*Options, clientSpec, string) {
					want := localWorkspace(t, port, allow)
					t.Chdir(want.Root)
					return nil, clientSpec{protocol: proto, noRoots: true}, want.Root
				}},
				{"no file roots: current directory", func(t *testing.T) (*Options, clientSpec, string) {
					want := localWorkspace(t, port, allow)
					t.Chdir(want.Root)
					return nil, clientSpec{protocol: proto, roots: []*mcp.Root{{URI: "https://example.com/repo"}}}, want.Root
				}},
				{"empty roots: current directory", func(t *testing.T) (*Options, clientSpec, string) {
					want := localWorkspace(t, port, allow)
					t.Chdir(want.Root)
					return nil, clientSpec{protocol: proto}, want.Root
				}},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					opts, spec, want := tc.setup(t)
					cs := connect(t, opts, spec)
					for i := range 2 { // the second call uses the remembered root
						res := callFetch(t, cs, fmt.Sprintf(`{"url": %q}`, srv.URL))
						if res.IsError {
							t.Fatalf("call %d: error result %q; want the rule in %s to allow it", i, text(res), want)
						}
					}
					lines := auditLines(t, wsAt(t, want))
					if len(lines) != 2 {
						t.Errorf("audit in %s has %d lines; want 2", want, len(lines))
					}
				})
			}
		})
	}
}

func TestWorkspaceRootUnusable(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	t.Chdir(t.TempDir())
	for _, proto := range protocols {
		for _, uri := range []string{"file://" + filepath.ToSlash(missing), "file://otherhost/x", "file:relative/path"} {
			t.Run(proto+"/"+uri, func(t *testing.T) {
				cs := connect(t, nil, clientSpec{protocol: proto, roots: []*mcp.Root{{URI: uri}}})
				res := callFetch(t, cs, `{"url": "https://example.com/"}`)
				if !res.IsError || !strings.HasPrefix(text(res), "workspace_invalid: ") || !strings.Contains(text(res), "--root DIR") {
					t.Errorf("isError %v, text %q; want workspace_invalid naming the root and the --root hint", res.IsError, text(res))
				}
			})
		}
	}
}

// TestRootsListChanged: after the client's roots change, the next call
// lists them again and uses the new first root.
func TestRootsListChanged(t *testing.T) {
	srv, port := pageServer(t)
	allow := fmt.Sprintf("127.0.0.1:%d", port)
	first := localWorkspace(t, port, allow)
	second := localWorkspace(t, port, allow)
	t.Chdir(t.TempDir())

	ms, err := NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	// The roots change notification is only sent on the session-based
	// protocol; on the multi round-trip protocol the roots are remembered
	// for the session.
	var client *mcp.Client
	cs := connectTo(t, ms, clientSpec{protocol: protoLegacy, roots: []*mcp.Root{fileRoot(first.Root)}, client: &client})
	if res := callFetch(t, cs, fmt.Sprintf(`{"url": %q}`, srv.URL)); res.IsError {
		t.Fatalf("first call: %s", text(res))
	}
	client.RemoveRoots(fileRoot(first.Root).URI)
	client.AddRoots(fileRoot(second.Root))
	// The notification is asynchronous; wait until the server sees it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if res := callFetch(t, cs, fmt.Sprintf(`{"url": %q}`, srv.URL)); res.IsError {
			t.Fatalf("call after the change: %s", text(res))
		}
		if len(auditLines(t, second)) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never used the changed root")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestFileURLPath(t *testing.T) {
	tests := []struct {
		uri     string
		want    string
		wantErr error // nil, errNotFileURL, or errAny
	}{
		{"file:///home/u/project", "/home/u/project", nil},
		{"FILE:///home/u/project/", "/home/u/project", nil},
		{"file://localhost/srv/x", "/srv/x", nil},
		{"file:///a/b/../c", "/a/c", nil},
		{"file:///with%20space", "/with space", nil},
		{"https://example.com/x", "", errNotFileURL},
		{"vscode-remote://ssh/x", "", errNotFileURL},
		{"", "", errNotFileURL},
		{"file://otherhost/x", "", errAny},
		{"file:relative", "", errAny},
		{"file://", "", errAny},
		{"file:///a%00b", "", errAny},
	}
	for _, tc := range tests {
		t.Run(tc.uri, func(t *testing.T) {
			if runtime.GOOS == "windows" && tc.want != "" {
				t.Skip("a path without a drive letter is not absolute on Windows (TestFileURLPathWindows)")
			}
			got, err := fileURLPath(tc.uri)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("fileURLPath(%q) error %v; want %q", tc.uri, err, tc.want)
			case tc.wantErr == errNotFileURL && !errors.Is(err, errNotFileURL):
				t.Fatalf("fileURLPath(%q) = %q, %v; want errNotFileURL", tc.uri, got, err)
			case tc.wantErr == errAny && (err == nil || errors.Is(err, errNotFileURL)):
				t.Fatalf("fileURLPath(%q) = %q, %v; want a refusal", tc.uri, got, err)
			}
			if got != tc.want {
				t.Errorf("fileURLPath(%q) = %q; want %q", tc.uri, got, tc.want)
			}
		})
	}
}

var errAny = errors.New("any error")

// TestFileURLPathWindows: the roots of an MCP client on Windows (VS Code,
// Claude Desktop) are file:///C:/… or, percent-encoded, file:///c%3A/…
// URLs: the path after the host begins with "/" and a drive letter, and
// names the drive's path without that slash. The rules are tested here
// with slashes (fileURLSlashPath); fileURLPath turns them into
// backslashes on Windows.
func TestFileURLPathWindows(t *testing.T) {
	tests := []struct {
		uri     string
		want    string
		wantErr error
	}{
		{"file:///C:/Users/me/proj", "C:/Users/me/proj", nil},
		{"file:///c%3A/Users/me/proj", "c:/Users/me/proj", nil},
		{"file:///c%3a/Users/me/proj/", "c:/Users/me/proj", nil},
		{"file://localhost/D:/work", "D:/work", nil},
		{"file:///C:/a/../b", "C:/b", nil},
		{"file:///C:/../..", "C:/", nil},
		{"file:///C:", "C:/", nil},
		{"file:///C:/", "C:/", nil},
		{"file:///home/u/project", "", errAny}, // no drive: not absolute on Windows
		{"file:///C:relative", "", errAny},
		{"file:///1:/x", "", errAny},
		{"file://server/share/proj", "", errAny},
	}
	for _, tc := range tests {
		t.Run(tc.uri, func(t *testing.T) {
			got, err := fileURLSlashPath(tc.uri, true)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("error %v; want %q", err, tc.want)
			case tc.wantErr == errAny && err == nil:
				t.Fatalf("= %q; want a refusal", got)
			}
			if got != tc.want {
				t.Errorf("= %q; want %q", got, tc.want)
			}
		})
	}
	// Elsewhere "/C:/x" is a directory named "C:" under /.
	if got, err := fileURLSlashPath("file:///C:/x", false); err != nil || got != "/C:/x" {
		t.Errorf("on Unix = %q, %v; want /C:/x", got, err)
	}
}

// FuzzFileURLPath: a root URI comes from the client. Whatever it is, the
// result is an error or an absolute, clean path without NUL.
func FuzzFileURLPath(f *testing.F) {
	for _, s := range []string{
		"file:///home/u/project", // the common case
		"file://localhost/srv",   // explicit local host
		"file://host/share",      // another machine: refused
		"file:rel",               // opaque: refused
		"file:///a/../../..",     // climbs above the root: cleaned to /
		"file:///a%2fb",          // encoded slash
		"file:///%00",            // NUL
		"https://example.com/",   // not a file URL
		"file:////double",        // empty first segment
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		p, err := fileURLPath(uri)
		if err != nil {
			return
		}
		if !filepath.IsAbs(p) || filepath.Clean(p) != p || strings.ContainsRune(p, 0) {
			t.Fatalf("fileURLPath(%q) = %q; want an absolute clean path", uri, p)
		}
	})
}

// TestRootsAnsweredWithSomethingElse: on the multi round-trip protocol, a
// roots question answered with anything but a roots list is an error
// result, not the question again.
func TestRootsAnsweredWithSomethingElse(t *testing.T) {
	t.Chdir(t.TempDir())
	ms, err := NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := ms.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "manual", Version: "v0"}, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	args := map[string]any{"url": "https://example.com/"}
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if !first.NeedsInput() || first.InputRequests[inputRoots] == nil {
		t.Fatalf("first result: needsInput %v, requests %v; want the roots question", first.NeedsInput(), first.InputRequests)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: args, RequestState: first.RequestState,
		InputResponses: mcp.InputResponseMap{inputRoots: &mcp.ElicitResult{Action: "accept"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.HasPrefix(text(res), "workspace_invalid: the client answered the roots request with something else") {
		t.Errorf("needsInput %v, isError %v, text %q; want workspace_invalid", res.NeedsInput(), res.IsError, text(res))
	}
}
