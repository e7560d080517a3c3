package buildinfo_test

import (
	"runtime/debug"
	"testing"

	"github.com/ocfetch/ocfetch/buildinfo"
)

// TestResolve: the version `ocfetch version` reports comes from the
// linker flags of a release build, else the module's build info — what
// `go install github.com/ocfetch/ocfetch/cmd/ocfetch@v0.2.0` records —
// else "(devel)".
func TestResolve(t *testing.T) {
	installed := &debug.BuildInfo{Main: debug.Module{Path: "github.com/ocfetch/ocfetch", Version: "v0.2.0"}}
	checkout := &debug.BuildInfo{Main: debug.Module{Path: "github.com/ocfetch/ocfetch", Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"},
	}}
	for _, tc := range []struct {
		name   string
		linked buildinfo.Info
		info   *debug.BuildInfo
		ok     bool
		want   buildinfo.Info
	}{
		{"go install @v0.2.0", buildinfo.Info{}, installed, true, buildinfo.Info{Version: "v0.2.0"}},
		{"a release build's ldflags win", buildinfo.Info{Version: "0.2.0", Commit: "abc", Date: "d"}, checkout, true, buildinfo.Info{Version: "0.2.0", Commit: "abc", Date: "d"}},
		{"a git checkout", buildinfo.Info{}, checkout, true, buildinfo.Info{Version: "(devel)", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-12-01T10:00:00Z"}},
		{"no module version", buildinfo.Info{}, &debug.BuildInfo{}, true, buildinfo.Info{Version: "(devel)"}},
		{"no build info", buildinfo.Info{}, nil, false, buildinfo.Info{Version: "(devel)"}},
	} {
		if got := buildinfo.Resolve(tc.linked, tc.info, tc.ok); got != tc.want {
			t.Errorf("%s: Resolve = %+v; want %+v", tc.name, got, tc.want)
		}
	}
}

// TestString: the version line names what is known, the commit shortened
// to 12 digits.
func TestString(t *testing.T) {
	for _, tc := range []struct {
		b    buildinfo.Info
		want string
	}{
		{buildinfo.Info{Version: "1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-12-01T10:00:00Z", Go: "go1.24.1", OS: "linux", Arch: "amd64"},
			"ocfetch 1.2.3 (commit 0123456789ab, built 2026-12-01T10:00:00Z) go1.24.1 linux/amd64"},
		{buildinfo.Info{Version: "(devel)", Commit: "abc", Go: "go1.24.1", OS: "darwin", Arch: "arm64"}, "ocfetch (devel) (commit abc) go1.24.1 darwin/arm64"},
		{buildinfo.Info{Version: "(devel)", Go: "go1.24.1", OS: "windows", Arch: "amd64"}, "ocfetch (devel) go1.24.1 windows/amd64"},
	} {
		if got := tc.b.String(); got != tc.want {
			t.Errorf("%+v.String() = %q; want %q", tc.b, got, tc.want)
		}
	}
}
