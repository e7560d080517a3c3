package rules_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/workspace"
)

func TestAddRemove(t *testing.T) {
	ctx := context.Background()
	ws := newWS(t)
	steps := []struct {
		name string
		do   func() error
		want string // the whole file afterwards
	}{
		{"allow", func() error { return rules.Add(ctx, ws, rule(rules.Allow, "Example.com", 443)) },
			`{
  "schema_version": 1,
  "rules": [
    {"capability": "network", "target": {"schema": "network.target.v1", "host": "example.com", "port": 443}, "decision": "allow"}
  ]
}
`},
		{"wildcard deny and an IPv6 rule, sorted", func() error {
			if err := rules.Add(ctx, ws, rule(rules.Allow, "::1", 8080)); err != nil {
				return err
			}
			return rules.Add(ctx, ws, rule(rules.Deny, "*.bücher.example", 8443))
		}, `{
  "schema_version": 1,
  "rules": [
    {"capability": "network", "target": {"schema": "network.target.v1", "host": "*.xn--bcher-kva.example", "port": 8443}, "decision": "deny"},
    {"capability": "network", "target": {"schema": "network.target.v1", "host": "::1", "port": 8080}, "decision": "allow"},
    {"capability": "network", "target": {"schema": "network.target.v1", "host": "example.com", "port": 443}, "decision": "allow"}
  ]
}
`},
		{"flip allow to deny", func() error { return rules.Add(ctx, ws, rule(rules.Deny, "example.com", 443)) },
			`{
  "schema_version": 1,
  "rules": [
    {"capability": "network", "target": {"schema": "network.target.v1", "host": "*.xn--bcher-kva.example", "port": 8443}, "decision": "deny"},
    {"capability": "network", "target": {"schema": "network.target.v1", "host": "::1", "port": 8080}, "decision": "allow"},
    {"capability": "network", "target": {"schema": "network.target.v1", "host": "example.com", "port": 443}, "decision": "deny"}
  ]
}
`},
		{"remove two", func() error {
			for _, h := range []string{"*.bücher.example:8443", "example.com"} {
				p, port, err := rules.ParseRuleTarget(h)
				if err != nil {
					return err
				}
				if ok, err := rules.Remove(ctx, ws, p.String(), port); err != nil || !ok {
					return fmt.Errorf("Remove(%s) = %v, %v; want true, nil", h, ok, err)
				}
			}
			return nil
		}, `{
  "schema_version": 1,
  "rules": [
    {"capability": "network", "target": {"schema": "network.target.v1", "host": "::1", "port": 8080}, "decision": "allow"}
  ]
}
`},
		{"remove a rule that is not there", func() error {
			if ok, err := rules.Remove(ctx, ws, "::1", 8081); err != nil || ok {
				return fmt.Errorf("Remove(::1, 8081) = %v, %v; want false, nil", ok, err)
			}
			return nil
		}, `{
  "schema_version": 1,
  "rules": [
    {"capability": "network", "target": {"schema": "network.target.v1", "host": "::1", "port": 8080}, "decision": "allow"}
  ]
}
`},
		{"remove the last", func() error {
			_, err := rules.Remove(ctx, ws, "[::1]", 8080)
			return err
		}, `{
  "schema_version": 1,
  "rules": []
}
`},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, err := os.ReadFile(ws.RulesPath())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(st.want, string(got)); diff != "" {
			t.Fatalf("%s: rules.json mismatch (-want +got):\n%s", st.name, diff)
		}
		if _, err := rules.Load(ws); err != nil {
			t.Fatalf("%s: the written file does not load: %v", st.name, err)
		}
	}
}

func TestAddFlipChangesDecision(t *testing.T) {
	ctx := context.Background()
	ws := newWS(t)
	req := capability.Network(capability.MustTarget("example.com", 443))
	for _, d := range []rules.Decision{rules.Allow, rules.Deny, rules.Allow} {
		if err := rules.Add(ctx, ws, rule(d, "example.com", 443)); err != nil {
			t.Fatal(err)
		}
		set, err := rules.Load(ws)
		if err != nil {
			t.Fatal(err)
		}
		if m, ok := set.Decide(req); !ok || m.Decision != d || set.Len() != 1 {
			t.Fatalf("after Add(%s): Decide = %v, %v with %d rules; want %s and 1 rule", d, m, ok, set.Len(), d)
		}
	}
}

func TestWriteRefusesOverInvalidFile(t *testing.T) {
	ctx := context.Background()
	bad := `{"schema_version": 1, "rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "example.com", "port": 443}, "decision": "deny"}], "oops": 1}`
	ops := []struct {
		name string
		do   func(ws workspace.Workspace) error
	}{
		{"Add", func(ws workspace.Workspace) error { return rules.Add(ctx, ws, rule(rules.Allow, "example.com", 443)) }},
		{"Remove", func(ws workspace.Workspace) error { _, err := rules.Remove(ctx, ws, "example.com", 443); return err }},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			ws := newWS(t)
			writeRules(t, ws, bad)
			err := op.do(ws)
			if code := refusal.CodeOf(err); code != refusal.RulesInvalid {
				t.Fatalf("%s over an invalid file: error %v; want code %s", op.name, err, refusal.RulesInvalid)
			}
			got, _ := os.ReadFile(ws.RulesPath())
			if string(got) != bad {
				t.Errorf("the invalid file was changed to %q; want it untouched", got)
			}
		})
	}
}

func TestAddRefusesInvalidRule(t *testing.T) {
	tests := []struct {
		name string
		r    rules.Rule
		want refusal.Code
	}{
		{"capability", rules.Rule{Capability: "filesystem", Target: rules.RuleTarget{Schema: capability.TargetSchemaV1, Host: "example.com", Port: 443}, Decision: rules.Allow}, refusal.InvalidArguments},
		{"schema", rules.Rule{Capability: capability.KindNetwork, Target: rules.RuleTarget{Schema: "v2", Host: "example.com", Port: 443}, Decision: rules.Allow}, refusal.InvalidArguments},
		{"host", rule(rules.Allow, "*.com", 443), refusal.InvalidHost},
		{"host with path", rule(rules.Allow, "example.com/admin", 443), refusal.InvalidHost},
		{"port", rule(rules.Allow, "example.com", 0), refusal.InvalidArguments},
		{"decision", rule("", "example.com", 443), refusal.InvalidArguments},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWS(t)
			err := rules.Add(context.Background(), ws, tc.r)
			if code := refusal.CodeOf(err); code != tc.want {
				t.Fatalf("Add(%v) = %v; want code %s", tc.r, err, tc.want)
			}
			if _, err := os.Stat(ws.RulesPath()); !os.IsNotExist(err) {
				t.Errorf("rules.json exists after a refused Add (stat: %v)", err)
			}
		})
	}
	if _, err := rules.Remove(context.Background(), newWS(t), "a*.example.com", 443); refusal.CodeOf(err) != refusal.InvalidHost {
		t.Errorf("Remove(a*.example.com) = %v; want code %s", err, refusal.InvalidHost)
	}
}

func TestAddHonoursContextWhileLocked(t *testing.T) {
	ws := newWS(t)
	unlock, err := workspace.LockFile(context.Background(), ws.RulesPath())
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := rules.Add(ctx, ws, rule(rules.Allow, "example.com", 443)); err == nil {
		t.Fatalf("Add while another holder has the lock and ctx expires: nil error; want one")
	}
}

func TestConcurrentAdd(t *testing.T) {
	ctx := context.Background()
	ws := newWS(t)
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			errs <- rules.Add(ctx, ws, childRule("g", i))
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkAllPresent(t, ws, map[string]int{"g": n})
}

// checkAllPresent loads ws and checks it holds exactly the rules the
// writers with the given ids and counts added.
func checkAllPresent(t *testing.T, ws workspace.Workspace, writers map[string]int) {
	t.Helper()
	set, err := rules.Load(ws)
	if err != nil {
		t.Fatalf("Load after concurrent writes: %v", err)
	}
	var want []rules.Rule
	for id, n := range writers {
		for i := range n {
			want = append(want, childRule(id, i))
		}
	}
	wantSet := mustSet(t, want...)
	if diff := cmp.Diff(wantSet.Rules(), set.Rules()); diff != "" {
		t.Errorf("rules after concurrent writes mismatch (-want +got):\n%s", diff)
	}
}

func childCmd(t *testing.T, mode string, ws workspace.Workspace, id string, n int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"="+mode, envRoot+"="+ws.Root, envID+"="+id, fmt.Sprintf("%s=%d", envN, n))
	cmd.Stderr = os.Stderr
	return cmd
}

func TestMultiProcessAdd(t *testing.T) {
	ws := newWS(t)
	const procs, perProc = 4, 15
	writers := map[string]int{}
	var cmds []*exec.Cmd
	for p := range procs {
		id := fmt.Sprint(p)
		writers[id] = perProc
		cmd := childCmd(t, "add", ws, id, perProc)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v", i, err)
		}
	}
	checkAllPresent(t, ws, writers)
}

// TestCrashSafety kills a process that saves in a loop at random points;
// after every kill the file must load: the atomic rename leaves the old
// file or the new one, never a torn one, and the killed process's lock
// dies with it.
func TestCrashSafety(t *testing.T) {
	ws := newWS(t)
	rng := rand.New(rand.NewPCG(1, 2))
	const iterations = 6
	for it := range iterations {
		cmd := childCmd(t, "churn", ws, fmt.Sprint(it), 0)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || line != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("iteration %d: child said %q, %v; want ready", it, line, err)
		}
		time.Sleep(time.Duration(rng.IntN(40)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err == nil {
			t.Fatalf("iteration %d: the child exited by itself; want it killed", it)
		}
		set, err := rules.Load(ws)
		if err != nil {
			t.Fatalf("iteration %d: after SIGKILL the file does not load: %v", it, err)
		}
		if set.Len() == 0 {
			t.Fatalf("iteration %d: after SIGKILL the set is empty; want the child's rules", it)
		}
		// The next writer must get the lock the killed one held.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = rules.Add(ctx, ws, rule(rules.Allow, fmt.Sprintf("after%d.example", it), 443))
		cancel()
		if err != nil {
			t.Fatalf("iteration %d: Add after SIGKILL: %v", it, err)
		}
	}
}
