package rules_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/workspace"
)

// The test binary doubles as the child process of the multi-process tests:
// with OCFETCH_RULES_CHILD set it runs a writer loop instead of the tests.
const (
	envChild = "OCFETCH_RULES_CHILD" // "add" or "churn"
	envRoot  = "OCFETCH_RULES_ROOT"
	envID    = "OCFETCH_RULES_ID"
	envN     = "OCFETCH_RULES_N"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(envChild); mode != "" {
		os.Exit(child(mode))
	}
	goleak.VerifyTestMain(m)
}

func child(mode string) int {
	ctx := context.Background()
	ws := workspace.Workspace{Root: os.Getenv(envRoot)}
	id := os.Getenv(envID)
	n, _ := strconv.Atoi(os.Getenv(envN))
	switch mode {
	case "add":
		// Adds n distinct rules, one locked cycle each.
		for i := range n {
			if err := rules.Add(ctx, ws, childRule(id, i)); err != nil {
				fmt.Fprintln(os.Stderr, "child add:", err)
				return 1
			}
		}
		return 0
	case "churn":
		// Saves until killed, growing and shrinking the file. The deadline
		// only bounds a child whose parent died.
		out := bufio.NewWriter(os.Stdout)
		deadline := time.Now().Add(30 * time.Second)
		for i := 0; time.Now().Before(deadline); i++ {
			if err := rules.Add(ctx, ws, childRule(id, i)); err != nil {
				fmt.Fprintln(os.Stderr, "child churn:", err)
				return 1
			}
			if i >= 5 {
				r := childRule(id, i-5)
				if _, err := rules.Remove(ctx, ws, r.Target.Host, r.Target.Port); err != nil {
					fmt.Fprintln(os.Stderr, "child churn:", err)
					return 1
				}
			}
			if i == 0 {
				out.WriteString("ready\n")
				out.Flush()
			}
		}
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown child mode", mode)
	return 2
}

func childRule(id string, i int) rules.Rule {
	d := rules.Allow
	if i%3 == 0 {
		d = rules.Deny
	}
	return rules.NewRule(d, capability.HostPattern{Host: fmt.Sprintf("h%d.p%s.example.com", i, id)}, uint16(1000+i%60000))
}
