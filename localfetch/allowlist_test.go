package localfetch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/workspace"
)

func TestConstants(t *testing.T) {
	ws := workspace.Workspace{Root: "/proj"}
	if got, want := AllowlistPath(ws), filepath.Join("/proj", DirName, FileName); got != want {
		t.Errorf("AllowlistPath = %q; want %q", got, want)
	}
	if got, want := AllowlistPath(ws), "/proj/.oc_chat/local_fetch.json"; got != want {
		t.Errorf("AllowlistPath = %q; want %q", got, want)
	}
	if SchemaVersion != 1 || Profile != "permissive" {
		t.Errorf("SchemaVersion, Profile = %d, %q; want 1, permissive", SchemaVersion, Profile)
	}
	for _, h := range LocalHosts {
		if !isLocalHost(h) || NormalizeLocalHost(h) != h {
			t.Errorf("LocalHosts entry %q is not a normalised local host", h)
		}
	}
}

func TestReadAllowedPortsValid(t *testing.T) {
	tests := []struct {
		name string
		data string
		want Ports
	}{
		{"documented form", `{"schema_version": 1, "ports": [3000, 8080]}`, Ports{3000, 8080}},
		{"sorted and deduplicated", `{"schema_version": 1, "ports": [8080, 3000, 8080, 3000]}`, Ports{3000, 8080}},
		{"keys in either order", `{"ports": [5173], "schema_version": 1}`, Ports{5173}},
		{"bounds", `{"schema_version": 1, "ports": [65535, 1]}`, Ports{1, 65535}},
		{"empty list admits nothing", `{"schema_version": 1, "ports": []}`, Ports{}},
		{"whitespace", "\n\t {\n\"schema_version\"\t: 1 ,\r\n\"ports\": [ 3000 ] }\n\n", Ports{3000}},
		{"escaped key", `{"schema_version": 1, "p\u006frts": [3000]}`, Ports{3000}},
		{"canonical write", string(marshalAllowlist(Ports{3000, 8080})), Ports{3000, 8080}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWorkspace(t)
			writeAllowlistFile(t, ws, tc.data)
			got, err := ReadAllowedPorts(ws)
			if err != nil {
				t.Fatalf("ReadAllowedPorts: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ports mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadAllowedPortsInvalid is the fail-closed table: every malformed file
// refuses the WHOLE file with local_allowlist_invalid, and the message names
// the file and what is wrong.
func TestReadAllowedPortsInvalid(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string // part of the message
	}{
		{"empty file", "", "empty"},
		{"only whitespace", " \n ", "empty"},
		{"undecodable bytes", "{\"schema_version\": 1, \"ports\": [3000]}\xff", "not valid UTF-8"},
		{"UTF-16", "\xff\xfe{\x00}\x00", "UTF-16 (its byte order mark is at byte 0), not UTF-8; save it as UTF-8 without a BOM"},
		{"undecodable inside a string", "{\"schema_version\": 1, \"ports\": [3000], \"\xc3\x28\": 1}", "not valid UTF-8"},
		{"latin-1", "{\"schema_version\": 1, \"ports\": [3000], \"caf\xe9\": 1}", "not valid UTF-8"},
		{"BOM", "\ufeff{\"schema_version\": 1, \"ports\": [3000]}", "a UTF-8 byte order mark (BOM) at byte 0; save it as UTF-8 without a BOM"},
		{"invalid JSON", `{"schema_version": 1, "ports": [3000,]}`, "invalid JSON"},
		{"single quotes", `{'schema_version': 1, 'ports': [3000]}`, "invalid JSON"},
		{"comment", `{"schema_version": 1, "ports": [3000]} // dev`, "trailing data"},
		{"truncated", `{"schema_version": 1, "ports": [3000`, "unexpected end"},
		{"trailing data", `{"schema_version": 1, "ports": [3000]} x`, "trailing data"},
		{"second object", `{"schema_version": 1, "ports": [3000]}{"schema_version": 1, "ports": [22]}`, "trailing data"},
		{"non-object: list", `[3000, 8080]`, "top level is a list"},
		{"non-object: string", `"3000"`, "top level is the string"},
		{"non-object: null", `null`, "top level is null"},
		{"non-object: number", `3000`, "top level is 3000"},
		{"non-object: true", `true`, "top level is true"},
		{"schema_version missing", `{"ports": [3000]}`, "schema_version is missing"},
		{"schema_version 2", `{"schema_version": 2, "ports": [3000]}`, "schema_version 2 is not supported"},
		{"schema_version 0", `{"schema_version": 0, "ports": [3000]}`, "schema_version 0 is not supported"},
		{"schema_version -1", `{"schema_version": -1, "ports": [3000]}`, "schema_version is -1"},
		{"schema_version 1.0", `{"schema_version": 1.0, "ports": [3000]}`, "schema_version is 1.0"},
		{"schema_version 1e0", `{"schema_version": 1e0, "ports": [3000]}`, "schema_version is 1e0"},
		{"schema_version string", `{"schema_version": "1", "ports": [3000]}`, `schema_version is the string "1"`},
		{"schema_version true", `{"schema_version": true, "ports": [3000]}`, "schema_version is true"},
		{"schema_version null", `{"schema_version": null, "ports": [3000]}`, "schema_version is null"},
		{"schema_version list", `{"schema_version": [1], "ports": [3000]}`, "schema_version is a list"},
		{"ports missing", `{"schema_version": 1}`, `"ports" is missing`},
		{"ports a number", `{"schema_version": 1, "ports": 3000}`, "ports is 3000; want a list"},
		{"ports a string", `{"schema_version": 1, "ports": "3000,8080"}`, "ports is the string"},
		{"ports an object", `{"schema_version": 1, "ports": {"dev": 3000}}`, "ports is an object"},
		{"ports null", `{"schema_version": 1, "ports": null}`, "ports is null"},
		{"entry true", `{"schema_version": 1, "ports": [true]}`, "ports[0] is true"},
		{"entry false", `{"schema_version": 1, "ports": [false]}`, "ports[0] is false"},
		{"entry 3000.0", `{"schema_version": 1, "ports": [3000.0]}`, "ports[0] is 3000.0"},
		{"entry 3e3", `{"schema_version": 1, "ports": [3e3]}`, "ports[0] is 3e3"},
		{"entry 1e3", `{"schema_version": 1, "ports": [1e3]}`, "ports[0] is 1e3"},
		{"entry string", `{"schema_version": 1, "ports": ["3000"]}`, `ports[0] is the string "3000"`},
		{"entry null", `{"schema_version": 1, "ports": [null]}`, "ports[0] is null"},
		{"entry 0", `{"schema_version": 1, "ports": [0]}`, "ports[0] is 0"},
		{"entry 65536", `{"schema_version": 1, "ports": [65536]}`, "ports[0] is 65536"},
		{"entry -1", `{"schema_version": 1, "ports": [-1]}`, "ports[0] is -1"},
		{"entry -0", `{"schema_version": 1, "ports": [-0]}`, "ports[0] is -0"},
		{"entry huge", `{"schema_version": 1, "ports": [99999999999999999999999]}`, "ports[0] is 99999999999999999999999"},
		{"entry nested list", `{"schema_version": 1, "ports": [[3000]]}`, "ports[0] is a list"},
		{"entry object", `{"schema_version": 1, "ports": [{"port": 3000}]}`, "ports[0] is an object"},
		{"one bad entry refuses all", `{"schema_version": 1, "ports": [3000, 8080, true, 5173]}`, "ports[2] is true"},
		{"bad entry after schema error order", `{"ports": [3000, "x"], "schema_version": 1}`, `ports[1] is the string "x"`},
		{"duplicate ports key", `{"schema_version": 1, "ports": [3000], "ports": [22]}`, `duplicate key "ports"`},
		{"duplicate schema_version", `{"schema_version": 1, "schema_version": 1, "ports": []}`, `duplicate key "schema_version"`},
		{"duplicate via escape", `{"schema_version": 1, "ports": [3000], "port\u0073": [22]}`, `duplicate key "ports"`},
		{"unknown key", `{"schema_version": 1, "ports": [3000], "hosts": ["10.0.0.1"]}`, `unknown key "hosts"`},
		{"key in other case", `{"schema_version": 1, "Ports": [3000]}`, `unknown key "Ports"`},
		{"deep nesting in ports", `{"schema_version": 1, "ports": ` + strings.Repeat("[", 60000), "ports[0] is a list"},
		{"deep nesting at the top", strings.Repeat("[", 60000), "top level is a list"},
		{"deep nesting as a value", `{"schema_version": 1, "x": ` + strings.Repeat(`{"a":`, 10000), `unknown key "x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWorkspace(t)
			writeAllowlistFile(t, ws, tc.data)
			got, err := ReadAllowedPorts(ws)
			checkRefusal(t, err, refusal.LocalAllowlistInvalid, AllowlistPath(ws), tc.want)
			if got != nil {
				t.Errorf("ports = %v; want none on error", got)
			}
		})
	}
}

// checkRefusal asserts that err is an *refusal.Error with code whose
// message contains every one of wants, and that it carries a hint.
func checkRefusal(t *testing.T, err error, code refusal.Code, wants ...string) *refusal.Error {
	t.Helper()
	r, ok := refusal.As(err)
	if !ok {
		t.Fatalf("error %v is not a *refusal.Error", err)
	}
	if r.Code != code {
		t.Errorf("code = %q (%s); want %q", r.Code, r.Message, code)
	}
	for _, w := range wants {
		if !strings.Contains(r.Message, w) {
			t.Errorf("message %q does not contain %q", r.Message, w)
		}
	}
	if r.Hint == "" {
		t.Errorf("refusal %q carries no hint", r.Message)
	}
	return r
}

func TestReadAllowedPortsMissing(t *testing.T) {
	for name, ws := range map[string]workspace.Workspace{
		"no .oc_chat directory": newWorkspace(t),
		"no file":               func() workspace.Workspace { ws := newWorkspace(t); _ = ws.EnsureDir(); return ws }(),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ReadAllowedPorts(ws)
			r := checkRefusal(t, err, refusal.LocalAllowlistMissing, AllowlistPath(ws))
			if !strings.Contains(r.Hint, "ocfetch local allow PORT") {
				t.Errorf("hint %q does not name the command that creates the file", r.Hint)
			}
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("error %v does not wrap fs.ErrNotExist", err)
			}
		})
	}
}

func TestReadAllowedPortsZeroWorkspace(t *testing.T) {
	// A zero Workspace must not read .oc_chat/local_fetch.json relative to
	// the current directory.
	_, err := ReadAllowedPorts(workspace.Workspace{})
	checkRefusal(t, err, refusal.LocalAllowlistInvalid, "not an absolute path")
}

// TestReadAllowedPortsNotRegular covers files that must be refused without
// reading them: none of them may hang the reader.
func TestReadAllowedPortsNotRegular(t *testing.T) {
	valid := `{"schema_version": 1, "ports": [3000]}`
	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
		want  string
	}{
		{"directory", func(t *testing.T, path string) { mustDo(t, os.Mkdir(path, 0o755)) }, "a directory"},
		{"symlink to /dev/zero", func(t *testing.T, path string) { mustDo(t, os.Symlink("/dev/zero", path)) }, "not a regular file"},
		{"FIFO", func(t *testing.T, path string) { testio.Mkfifo(t, path) }, "a FIFO"},
		{"symlink to a FIFO", func(t *testing.T, path string) {
			fifo := filepath.Join(filepath.Dir(path), "fifo")
			testio.Mkfifo(t, fifo)
			mustDo(t, os.Symlink(fifo, path))
		}, "a symlink"},
		{"65 KiB", func(t *testing.T, path string) {
			mustDo(t, os.WriteFile(path, []byte(valid+strings.Repeat(" ", 65<<10)), 0o644))
		}, "too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWorkspace(t)
			mustDo(t, ws.EnsureDir())
			tc.setup(t, AllowlistPath(ws))
			err := withTimeout(t, func() error { _, err := ReadAllowedPorts(ws); return err })
			checkRefusal(t, err, refusal.LocalAllowlistInvalid, AllowlistPath(ws), tc.want)
			// The door stays closed through AdmitLocalURL too.
			err = withTimeout(t, func() error {
				_, err := AdmitLocalURL("http://localhost:3000/", ws, Profile)
				return err
			})
			checkRefusal(t, err, refusal.LocalAllowlistInvalid, AllowlistPath(ws))
		})
	}
}

func TestReadAllowedPortsOcChatIsAFile(t *testing.T) {
	ws := newWorkspace(t)
	mustDo(t, os.WriteFile(ws.Dir(), []byte("x"), 0o644))
	_, err := ReadAllowedPorts(ws)
	checkRefusal(t, err, refusal.LocalAllowlistInvalid, AllowlistPath(ws))
}

func TestReadAllowedPortsUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		// root reads a mode-000 file regardless, so the unreadable case
		// cannot be constructed; it is covered where tests run unprivileged.
		t.Skip("running as root: chmod 000 does not block reads")
	}
	ws := newWorkspace(t)
	writeAllowlistFile(t, ws, `{"schema_version": 1, "ports": [3000]}`)
	mustDo(t, os.Chmod(AllowlistPath(ws), 0))
	_, err := ReadAllowedPorts(ws)
	checkRefusal(t, err, refusal.LocalAllowlistInvalid, AllowlistPath(ws), "permission denied")
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// withTimeout runs f and fails the test if it does not return within five
// seconds (a FIFO or device that blocks the reader).
func withTimeout(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("the allowlist reader hung")
		return nil
	}
}

func TestPorts(t *testing.T) {
	p := NewPorts(8080, 0, 3000, 8080, 1)
	if diff := cmp.Diff(Ports{1, 3000, 8080}, p); diff != "" {
		t.Errorf("NewPorts mismatch (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		port uint16
		want bool
	}{{1, true}, {3000, true}, {8080, true}, {0, false}, {2, false}, {65535, false}} {
		if got := p.Contains(tc.port); got != tc.want {
			t.Errorf("Contains(%d) = %v; want %v", tc.port, got, tc.want)
		}
	}
	if got := (Ports{8080, 3000}).Contains(3000); !got {
		t.Error("Contains on an unsorted literal = false; want true")
	}
	if got := (Ports{0}).Contains(0); got {
		t.Error("Contains(0) = true; want false: 0 is never a port")
	}
	if got, want := p.String(), "1, 3000, 8080"; got != want {
		t.Errorf("String = %q; want %q", got, want)
	}
	if got, want := Ports(nil).String(), "none"; got != want {
		t.Errorf("String = %q; want %q", got, want)
	}
}

func TestWriteAllowedPorts(t *testing.T) {
	ws := newWorkspace(t)
	mustDo(t, WriteAllowedPorts(ws, Ports{8080, 3000, 8080}))
	data, err := os.ReadFile(AllowlistPath(ws))
	mustDo(t, err)
	if got, want := string(data), "{\"schema_version\": 1, \"ports\": [3000, 8080]}\n"; got != want {
		t.Errorf("file = %q; want %q", got, want)
	}
	got, err := ReadAllowedPorts(ws)
	mustDo(t, err)
	if diff := cmp.Diff(Ports{3000, 8080}, got); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
	mustDo(t, WriteAllowedPorts(ws, nil))
	if got, err := ReadAllowedPorts(ws); err != nil || len(got) != 0 {
		t.Errorf("after writing no ports: %v, %v; want empty, nil", got, err)
	}
	err = WriteAllowedPorts(ws, Ports{3000, 0})
	checkCode(t, err, refusal.InvalidArguments)
}

func checkCode(t *testing.T, err error, want refusal.Code) {
	t.Helper()
	if got := refusal.CodeOf(err); got != want {
		t.Errorf("code = %q (error %v); want %q", got, err, want)
	}
}

// stat returns the file's identity; an atomic rewrite changes it.
func stat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	mustDo(t, err)
	return fi
}

func TestAllowPort(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t)

	got, err := AllowPort(ctx, ws, 8080)
	mustDo(t, err)
	if diff := cmp.Diff(Ports{8080}, got); diff != "" {
		t.Errorf("allow on a missing file (-want +got):\n%s", diff)
	}
	got, err = AllowPort(ctx, ws, 3000)
	mustDo(t, err)
	if diff := cmp.Diff(Ports{3000, 8080}, got); diff != "" {
		t.Errorf("allow a second port (-want +got):\n%s", diff)
	}

	before := stat(t, AllowlistPath(ws))
	got, err = AllowPort(ctx, ws, 3000)
	mustDo(t, err)
	if diff := cmp.Diff(Ports{3000, 8080}, got); diff != "" {
		t.Errorf("allow a listed port (-want +got):\n%s", diff)
	}
	if !os.SameFile(before, stat(t, AllowlistPath(ws))) {
		t.Error("allowing a listed port rewrote the file")
	}

	_, err = AllowPort(ctx, ws, 0)
	checkCode(t, err, refusal.InvalidArguments)

	// The CLI's allow is visible to the very next admission.
	if port, err := AdmitLocalURL("http://localhost:3000/", ws, Profile); err != nil || port != 3000 {
		t.Errorf("AdmitLocalURL after allow = %d, %v; want 3000, nil", port, err)
	}
}

func TestRevokePort(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t)

	got, err := RevokePort(ctx, ws, 3000)
	if err != nil || got != nil {
		t.Errorf("revoke on a missing file = %v, %v; want nil, nil", got, err)
	}
	if _, err := os.Stat(AllowlistPath(ws)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("revoke on a missing file created it (stat: %v)", err)
	}

	mustDo(t, WriteAllowedPorts(ws, Ports{3000, 8080}))
	before := stat(t, AllowlistPath(ws))
	got, err = RevokePort(ctx, ws, 5173)
	mustDo(t, err)
	if diff := cmp.Diff(Ports{3000, 8080}, got); diff != "" {
		t.Errorf("revoke an unlisted port (-want +got):\n%s", diff)
	}
	if !os.SameFile(before, stat(t, AllowlistPath(ws))) {
		t.Error("revoking an unlisted port rewrote the file")
	}

	got, err = RevokePort(ctx, ws, 3000)
	mustDo(t, err)
	if diff := cmp.Diff(Ports{8080}, got); diff != "" {
		t.Errorf("revoke (-want +got):\n%s", diff)
	}
	_, err = AdmitLocalURL("http://localhost:3000/", ws, Profile)
	checkCode(t, err, refusal.LocalPortNotAllowed)

	got, err = RevokePort(ctx, ws, 8080)
	mustDo(t, err)
	if len(got) != 0 {
		t.Errorf("revoke the last port = %v; want empty", got)
	}
	if p, err := ReadAllowedPorts(ws); err != nil || len(p) != 0 {
		t.Errorf("file after revoking the last port reads %v, %v; want empty, nil", p, err)
	}
}

// TestModifyInvalidFileLosesNothing: allow and revoke refuse an invalid file
// rather than replace it, so nothing the user wrote is lost.
func TestModifyInvalidFileLosesNothing(t *testing.T) {
	const broken = `{"schema_version": 1, "ports": [3000, 8080,]} // my notes`
	for name, op := range map[string]func(context.Context, workspace.Workspace, uint16) (Ports, error){
		"allow":  AllowPort,
		"revoke": RevokePort,
	} {
		t.Run(name, func(t *testing.T) {
			ws := newWorkspace(t)
			writeAllowlistFile(t, ws, broken)
			_, err := op(context.Background(), ws, 3000)
			checkRefusal(t, err, refusal.LocalAllowlistInvalid, AllowlistPath(ws))
			data, err := os.ReadFile(AllowlistPath(ws))
			mustDo(t, err)
			if string(data) != broken {
				t.Errorf("file = %q; want it untouched: %q", data, broken)
			}
		})
	}
}

func TestAllowPortConcurrent(t *testing.T) {
	ws := newWorkspace(t)
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := AllowPort(context.Background(), ws, uint16(3000+i)); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("AllowPort: %v", err)
	}
	got, err := ReadAllowedPorts(ws)
	mustDo(t, err)
	want := make(Ports, n)
	for i := range want {
		want[i] = uint16(3000 + i)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a concurrent allow was lost (-want +got):\n%s", diff)
	}
}

func TestAllowPortWaitsForLockUntilContextDone(t *testing.T) {
	ws := newWorkspace(t)
	unlock, err := workspace.LockFile(context.Background(), AllowlistPath(ws))
	mustDo(t, err)
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = AllowPort(ctx, ws, 3000)
	if err == nil {
		t.Fatal("AllowPort succeeded while another writer held the lock")
	}
	if _, err := os.Stat(AllowlistPath(ws)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file was written without the lock (stat: %v)", err)
	}
}

func ExampleReadAllowedPorts() {
	root, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(root)
	ws := workspace.Workspace{Root: root}

	_, err := ReadAllowedPorts(ws)
	fmt.Println(refusal.CodeOf(err))

	_, _ = AllowPort(context.Background(), ws, 8080)
	ports, _ := AllowPort(context.Background(), ws, 3000)
	fmt.Println(ports, ports.Contains(3000))
	// Output:
	// local_allowlist_missing
	// 3000, 8080 true
}

// TestAdmitDuringRewrites: a reader racing allow/revoke never sees a torn
// file — every read is the old or the new allowlist, never an invalid one.
func TestAdmitDuringRewrites(t *testing.T) {
	ws := newWorkspace(t)
	mustDo(t, WriteAllowedPorts(ws, Ports{3000}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			op := AllowPort
			if i%2 == 1 {
				op = RevokePort
			}
			if _, err := op(ctx, ws, 8080); err != nil && ctx.Err() == nil {
				t.Errorf("writer: %v", err)
				return
			}
		}
	}()
	for range 300 {
		_, err := AdmitLocalURL("http://localhost:3000/", ws, Profile)
		if err != nil {
			t.Errorf("reader saw %v during a rewrite; want 3000 admitted throughout", err)
			break
		}
	}
	cancel()
	wg.Wait()
}
