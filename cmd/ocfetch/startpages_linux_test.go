package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/internal/startpages"
)

// TestStartPagesKnowsTheLongRunningCommands: internal/startpages tells the
// commands that serve until stopped by name; a renamed command would be
// prefaulted silently.
func TestStartPagesKnowsTheLongRunningCommands(t *testing.T) {
	var names []string
	for _, c := range subcommands {
		names = append(names, c.name)
	}
	for _, name := range startpages.LongRunning {
		if !slices.Contains(names, name) {
			t.Errorf("startpages.LongRunning names %q, which is not an ocfetch command", name)
		}
	}
}

// TestStartPagesInitialisesEarly: prefaulting helps only if it runs
// before the dependencies whose initialisation touches most pages. The package
// initialisation order of this binary (the ocfetch command and its tests)
// is read from the runtime's init trace.
func TestStartPagesInitialisesEarly(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.Bytes())
	}
	order := map[string]int{}
	s := bufio.NewScanner(&stderr)
	for s.Scan() {
		if f := strings.Fields(s.Text()); len(f) > 2 && f[0] == "init" {
			order[f[1]] = len(order)
		}
	}
	const self = "github.com/ocfetch/ocfetch/internal/startpages"
	at, ok := order[self]
	if !ok {
		t.Fatalf("no init of %s in the trace:\n%s", self, stderr.Bytes())
	}
	for _, heavy := range []string{
		"codeberg.org/readeck/go-readability/v2",
		"golang.org/x/net/html",
		"github.com/ledongthuc/pdf",
		"github.com/modelcontextprotocol/go-sdk/mcp",
		"github.com/prometheus/client_golang/prometheus",
		"net/http",
	} {
		if i, ok := order[heavy]; !ok {
			t.Errorf("%s is not initialised at all; update the test's list", heavy)
		} else if i < at {
			t.Errorf("%s is initialised (#%d) before %s (#%d)", heavy, i, self, at)
		}
	}
}
