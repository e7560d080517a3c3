package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ocfetch/ocfetch/internal/reexec"
	"github.com/ocfetch/ocfetch/internal/testsupport/testchild"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"github.com/ocfetch/ocfetch/managed"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: every
// session, transport, HTTP server and loopback page a test starts must be
// closed by the end of it. It also removes the binary the end-to-end tests
// build.
func TestMain(m *testing.M) {
	reexec.Init() // PDFs are extracted by this binary run again as a child part
	testchild.QuickRaceExit()
	dir, err := os.MkdirTemp("", "mcpserver-layers-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testLayersDir = dir
	store, err := trust.Open(&trust.Options{Dir: filepath.Join(dir, "config", "ocfetch")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testLayers = &policy.Layers{
		Managed: &managed.Options{Path: filepath.Join(dir, "etc", "ocfetch", "policy.json")},
		Trust:   store,
		User:    &rules.Location{Dir: filepath.Join(dir, "config", "ocfetch"), Name: "rules.json"},
	}
	code := m.Run()
	removeBinary()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// testLayersDir holds the package's layer files: config/ocfetch (trust.json,
// the user's rules.json, the XDG_CONFIG_HOME of the end-to-end binary) and
// etc/ocfetch/policy.json (absent).
var testLayersDir string

// trustedWS is testws.New for a workspace the user trusts (in the package's
// trust store), as every workspace whose files grant something must be.
func trustedWS(t testing.TB, spec testws.Spec) workspace.Workspace {
	t.Helper()
	ws := testws.New(t, spec)
	if err := testLayers.Trust.Trust(context.Background(), ws.Root, trust.Details{How: "test"}); err != nil {
		t.Fatal(err)
	}
	return ws
}

// configEnv points the end-to-end binary's os.UserConfigDir() at the
// package's trust store.
func configEnv() []string {
	return []string{"XDG_CONFIG_HOME=" + filepath.Join(testLayersDir, "config"), "HOME=" + testLayersDir}
}
