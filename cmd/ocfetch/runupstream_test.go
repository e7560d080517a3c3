//go:build linux || darwin || freebsd

package main

import (
	"encoding/pem"
	"github.com/ocfetch/ocfetch/internal/testsupport/testws"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/internal/testsupport/testnet"
)

// TestRunUpstreamProxy: ocfetch run --upstream-proxy chains the shell's
// network to the operator's proxy as get does: curl's CONNECT to
// example.com is decided, resolved (the injected resolver), and sent to
// the upstream proxy as CONNECT to the checked address; a name whose
// answer is private is refused and never reaches the upstream proxy.
func TestRunUpstreamProxy(t *testing.T) {
	curlPath, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not on PATH")
	}
	pub := testnet.StartPublicTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("through the corporate proxy to " + r.Host))
	}), nil)
	up := testnet.StartConnectProxy(t, pub.Server.Listener.Addr().String())
	o := cliOptions{egress: func(eo *egress.Options) {
		eo.Resolver = testnet.Resolver{"example.com": {publicAddr}, "intranet.example.com": {netip.MustParseAddr("10.1.2.3")}}
	}}
	root := newRoot(t)
	if err := testws.GiveToSandboxUser(root); err != nil {
		t.Fatal(err)
	}
	// In the workspace, readable by all: as root the sandbox runs curl as
	// an ordinary user.
	caFile := filepath.Join(root, "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: pub.Server.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	ocfetch(t, o, "--root", root, "rules", "allow", "example.com").want(t, exitOK, nil, nil)
	ocfetch(t, o, "--root", root, "rules", "allow", "intranet.example.com").want(t, exitOK, nil, nil)
	curl := []string{curlPath, "-sS", "--noproxy", "", "--max-time", "10", "--cacert", caFile}

	r := ocfetch(t, o, append([]string{"--root", root, "run", "--upstream-proxy", up.URL(), "--"}, append(curl, "https://example.com/")...)...)
	r.want(t, exitOK, []string{"through the corporate proxy to example.com"}, nil)
	r = ocfetch(t, o, append([]string{"--root", root, "run", "--upstream-proxy", up.URL(), "--"}, append(curl, "https://intranet.example.com/")...)...)
	r.want(t, 56, nil, []string{"ocfetch: refused CONNECT intranet.example.com:443: address_not_public"})
	// curl writes its message a byte at a time, and ocfetch writes its
	// refusal line (in one write) when the exchange ends, after curl has
	// its answer: the line may land inside curl's message. Read curl's
	// message with ocfetch's lines taken out.
	if curlOut := withoutLines(r.stderr, "ocfetch: refused "); !strings.Contains(curlOut, "CONNECT tunnel failed") {
		t.Errorf("stderr without ocfetch's refusal lines does not contain %q:\n%s", "CONNECT tunnel failed", r.stderr)
	}
	if lines := auditLinesOf(t, root); !strings.Contains(lines[len(lines)-1], `"outcome":"address_not_public"`) {
		t.Errorf("last audit line %s; want address_not_public", lines[len(lines)-1])
	}
	if targets, _ := up.Seen(); !cmp.Equal(targets, []string{"CONNECT " + publicAddr.String() + ":443"}) {
		t.Errorf("the upstream proxy saw %v; want only the CONNECT to the checked address", targets)
	}
	// A bad value is a usage error naming the flag, before anything runs.
	ocfetch(t, o, "--root", root, "run", "--upstream-proxy", "socks5://x:1", "--", "true").want(t, exitUsage, nil, []string{"--upstream-proxy"})
}

// withoutLines is s without each line (to its newline) that starts with
// prefix, wherever in s it begins.
func withoutLines(s, prefix string) string {
	for {
		i := strings.Index(s, prefix)
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+1:]
	}
}
