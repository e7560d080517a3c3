// Command callpath runs the path one `ocfetch mcp` tools/call takes —
// risk.Resolve, a broker with the workspace's audit log and every layer
// present (a managed policy, a trust store trusting the workspace, the
// user's rules, the workspace's rules.json, settings.json and
// local_fetch.json), broker.Call with the Fetch tool in local mode, and
// the audit line — in a loop against a 10 KB page on 127.0.0.1, so that
// `strace -c -f` can count its system calls per call
// (bench/callpath/run.sh). -plain runs the same GETs through a plain
// http.Client instead, for scale.
//
//	callpath -serve            # serve the page; prints the URL, then waits
//	callpath -url URL -n 1000  # 1000 calls of the full path
//	callpath -url URL -n 1000 -plain
//
// The layer files live in a temporary directory written before the loop
// and left alone for securefile.RacyWindow, as a user's files are between
// an edit and the calls that follow. Only 127.0.0.1 is dialled.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/broker"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/fetch"
	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/testsupport/testpage"
	"github.com/ocfetch/ocfetch/localfetch"
	"github.com/ocfetch/ocfetch/managed"
	"github.com/ocfetch/ocfetch/policy"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/scope"
	"github.com/ocfetch/ocfetch/trust"
	"github.com/ocfetch/ocfetch/workspace"
)

func main() {
	serve := flag.Bool("serve", false, "serve the 10 KB page on 127.0.0.1 and wait")
	target := flag.String("url", "", "the page (http://127.0.0.1:PORT/page)")
	n := flag.Int("n", 1000, "calls (0–100000); 0 sets up and exits, the baseline to subtract")
	plain := flag.Bool("plain", false, "a plain http.Client GET per call instead of the full path")
	flag.Parse()
	var err error
	switch {
	case *serve:
		err = serveFn()
	case *target == "" || *n < 0 || *n > 100000:
		fmt.Fprintln(os.Stderr, "usage: callpath -serve | callpath -url URL [-n CALLS] [-plain]")
		os.Exit(2)
	default:
		err = run(*target, *n, *plain)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "callpath:", err)
		os.Exit(1)
	}
}

func serveFn() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	body := testpage.TenKB()
	fmt.Printf("http://%s/page\n", ln.Addr())
	return (&http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	})}).Serve(ln)
}

func run(target string, n int, plain bool) error {
	u, err := url.Parse(target)
	if err != nil || u.Hostname() != "127.0.0.1" {
		return fmt.Errorf("-url must be http://127.0.0.1:PORT/...: %q", target)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		return fmt.Errorf("-url: %v", err)
	}
	deadline := time.Now().Add(5 * time.Minute)
	if plain {
		client := &http.Client{Transport: &http.Transport{}}
		for i := 0; i < n && time.Now().Before(deadline); i++ {
			resp, err := client.Get(target)
			if err != nil {
				return err
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
		}
		return nil
	}
	tmp, err := os.MkdirTemp("", "callpath-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ws, layers, err := setup(tmp, uint16(port))
	if err != nil {
		return err
	}
	time.Sleep(securefile.RacyWindow + 100*time.Millisecond)
	client := egress.NewClient(nil)
	defer client.CloseIdleConnections()
	args := `{"url": "` + target + `", "format": "raw", "max_length": 1000000}`
	ctx := context.Background()
	for i := 0; i < n && time.Now().Before(deadline); i++ {
		// One call, as the MCP server makes it: the scope and broker.Call
		// share the call's checks of the files (securefile.Call).
		ctx, _ := securefile.EnsureCall(ctx)
		sc, err := scope.OpenContext(ctx, ws, scope.Flags{}, layers)
		if err != nil {
			return err
		}
		t := fetch.NewFetch(client, nil)
		b := &broker.Broker{Scope: sc, Audit: audit.Open(ws), ForModel: true, Approver: broker.NonInteractive()}
		if res := b.Call(ctx, t, args); res.IsError {
			return fmt.Errorf("call %d: %s: %s", i, res.Reason, res.Message)
		}
	}
	return nil
}

// setup writes the workspace and every layer under tmp.
func setup(tmp string, port uint16) (workspace.Workspace, *policy.Layers, error) {
	root := filepath.Join(tmp, "project")
	if err := os.MkdirAll(filepath.Join(root, workspace.DirName), 0o755); err != nil {
		return workspace.Workspace{}, nil, err
	}
	ws, err := workspace.Resolve(root)
	if err != nil {
		return ws, nil, err
	}
	ctx := context.Background()
	rule := func(host string, port uint16, d rules.Decision) rules.Rule {
		return rules.Rule{Capability: capability.KindNetwork,
			Target: rules.RuleTarget{Schema: capability.TargetSchemaV1, Host: host, Port: port}, Decision: d}
	}
	if err := os.WriteFile(ws.SettingsPath(), []byte(`{"schema_version": 1, "risk_profile": "permissive"}`), 0o644); err != nil {
		return ws, nil, err
	}
	if err := localfetch.WriteAllowedPorts(ws, localfetch.NewPorts(port)); err != nil {
		return ws, nil, err
	}
	for _, r := range []rules.Rule{rule("127.0.0.1", port, rules.Allow), rule("example.com", 443, rules.Allow), rule("evil.example", 443, rules.Deny)} {
		if err := rules.Add(ctx, ws, r); err != nil {
			return ws, nil, err
		}
	}
	config := filepath.Join(tmp, "config", "ocfetch")
	store, err := trust.Open(&trust.Options{Dir: config})
	if err != nil {
		return ws, nil, err
	}
	if err := store.Trust(ctx, ws.Root, trust.Details{How: "callpath"}); err != nil {
		return ws, nil, err
	}
	user := rules.Location{Dir: config, Name: workspace.RulesFile}
	if err := rules.AddAt(ctx, user, rule("pkg.example.net", 443, rules.Allow)); err != nil {
		return ws, nil, err
	}
	mpath := filepath.Join(tmp, "etc", "ocfetch", managed.FileName)
	if err := os.MkdirAll(filepath.Dir(mpath), 0o755); err != nil {
		return ws, nil, err
	}
	if err := os.WriteFile(mpath, []byte(`{"schema_version": 1, "max_profile": "permissive", "rules": [`+
		`{"capability": "network", "target": {"schema": "network.target.v1", "host": "blocked.example", "port": 443}, "decision": "deny"}]}`), 0o644); err != nil {
		return ws, nil, err
	}
	me := strconv.Itoa(os.Getuid())
	return ws, &policy.Layers{
		Managed: &managed.Options{Path: mpath, Administrator: func(owner string) bool { return owner == me }},
		Trust:   store,
		User:    &user,
	}, nil
}
