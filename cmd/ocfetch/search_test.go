package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ocfetch/ocfetch/internal/testsupport/testio"
	"github.com/ocfetch/ocfetch/refusal"
)

// writeSearchConfig writes search.json (and a 0600 key file) in the
// test's own user configuration directory.
func writeSearchConfig(t *testing.T, config, key string) {
	t.Helper()
	dir := testLayers(t).configDir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "search.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	if key != "" {
		if err := os.WriteFile(filepath.Join(dir, "search.key"), []byte(key+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSearchCommand(t *testing.T) {
	var hits atomic.Int64
	_, egressOpts := publicSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("X-Subscription-Token") != "BSA-cli-key" {
			w.WriteHeader(401)
			return
		}
		if r.URL.Query().Get("q") == "ratequux9" {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
			return
		}
		fmt.Fprint(w, `{"type": "search", "web": {"type": "search", "results": [{"title": "Go", "url": "https://go.dev/", "description": "The Go programming language"}]}}`)
	}))
	writeSearchConfig(t, `{"schema_version": 1, "backend": "brave", "url": "https://example.com/res/v1/web/search"}`, "BSA-cli-key")
	root := newRoot(t)
	o := cliOptions{egress: egressOpts}

	t.Run("not approved", func(t *testing.T) {
		ocfetch(t, o, "--root", root, "search", "golang").want(t, exitRefused, nil, []string{"not_approved", "ocfetch rules allow example.com"})
		if hits.Load() != 0 {
			t.Errorf("the backend was asked %d times before any approval", hits.Load())
		}
	})
	t.Run("approved once", func(t *testing.T) {
		ocfetch(t, o, "--root", root, "search", "--yes", "golang").want(t, exitOK, []string{"Search results from brave (example.com): 1 result.", "1. Go\n   https://go.dev/\n   The Go programming language"}, nil)
	})
	t.Run("json", func(t *testing.T) {
		r := ocfetch(t, o, "--root", root, "search", "--yes", "--json", "-n", "3", "golang")
		var got struct {
			OK      bool   `json:"ok"`
			Backend string `json:"backend"`
			Results []struct {
				Rank       int
				Title, URL string
				Snippet    string
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || !got.OK || got.Backend != "brave" || len(got.Results) != 1 || got.Results[0].URL != "https://go.dev/" || got.Results[0].Rank != 1 {
			t.Errorf("--json = %s (%v)", r.stdout, err)
		}
	})
	t.Run("rate limited", func(t *testing.T) {
		ocfetch(t, o, "--root", root, "search", "--yes", "ratequux9").want(t, exitFailed, nil, []string{"search_rate_limited", "retry after 7s"})
	})
	t.Run("key file by flag", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "brave.key")
		if err := os.WriteFile(other, []byte("wrong-key"), 0o600); err != nil {
			t.Fatal(err)
		}
		ocfetch(t, o, "--root", root, "search", "--yes", "--key-file", other, "golang").want(t, exitFailed, nil, []string{"search_backend_failed", "HTTP 401"})
	})
	t.Run("bad count", func(t *testing.T) {
		ocfetch(t, o, "--root", root, "search", "-n", "0", "golang").want(t, exitUsage, nil, []string{"--count"})
	})
	t.Run("audit", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(root, ".oc_chat", "audit.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "golang") || strings.Contains(string(data), "ratequux9") || strings.Contains(string(data), "BSA-cli-key") {
			t.Errorf("audit log holds the query or the key:\n%s", data)
		}
		if !strings.Contains(string(data), `"summary":"GET example.com"`) || !strings.Contains(string(data), `"tool":"search"`) {
			t.Errorf("audit log lacks the search lines:\n%s", data)
		}
	})
}

func TestSearchNotConfigured(t *testing.T) {
	root := newRoot(t)
	r := ocfetch(t, cliOptions{}, "--root", root, "search", "--json", "x")
	var got errorJSON
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got.Error.Reason != "search_not_configured" || r.code != exitRefused || !strings.Contains(got.Error.Hint, "search.json") {
		t.Errorf("code %d, stdout %s; want search_not_configured (exit 3) with a hint naming search.json", r.code, r.stdout)
	}
}

// TestSearchJSONUsageError: under --json a missing or extra QUERY is the
// one JSON error object on stdout (invalid_arguments, exit 2), as every
// other usage error of search is; without --json it is text on stderr.
func TestSearchJSONUsageError(t *testing.T) {
	root := newRoot(t)
	for _, args := range [][]string{{}, {"one", "two"}} {
		r := ocfetch(t, cliOptions{}, append([]string{"--root", root, "search", "--json"}, args...)...)
		var got errorJSON
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil || got.Error.Reason != "invalid_arguments" || r.code != exitUsage || r.stderr != "" {
			t.Errorf("search --json %q: code %d, stdout %q, stderr %q; want the invalid_arguments object (exit 2) and no stderr", args, r.code, r.stdout, r.stderr)
		}
		r = ocfetch(t, cliOptions{}, append([]string{"--root", root, "search"}, args...)...)
		if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, "QUERY") {
			t.Errorf("search %q: code %d, stdout %q, stderr %q; want exit 2 naming QUERY on stderr", args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestSearchBadProfile: a bad --profile is a usage error (exit 2) even
// where no backend is configured: the flags are checked before the
// backend's configuration is read.
func TestSearchBadProfile(t *testing.T) {
	root := newRoot(t)
	r := ocfetch(t, cliOptions{}, "--root", root, "--profile", "bogus", "search", "--json", "x")
	var got errorJSON
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got.Error.Reason != "invalid_arguments" || r.code != exitUsage {
		t.Errorf("code %d, stdout %s; want invalid_arguments (exit 2)", r.code, r.stdout)
	}
}

// TestSearchJSONInterrupted: Ctrl-C (the context cancelled) during search
// --json exits 130, as get --json does, after the one object --json
// promises: reason cancelled, nothing on stderr.
func TestSearchJSONInterrupted(t *testing.T) {
	reached := make(chan struct{}, 1)
	_, egressOpts := publicSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case reached <- struct{}{}:
		default:
		}
		<-r.Context().Done() // a backend that never answers
	}))
	writeSearchConfig(t, `{"schema_version": 1, "backend": "brave", "url": "https://example.com/res/v1/web/search"}`, "BSA-cli-key")
	root := newRoot(t)
	var stdout, stderr testio.SyncBuffer
	a := newApp(strings.NewReader(""), &stdout, &stderr)
	a.interactive = func() bool { return false }
	a.egressOptions = egressOpts
	a.layers = testLayers(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- execute(ctx, a, []string{"--root", root, "search", "--yes", "--json", "golang"}) }()
	select {
	case <-reached:
	case <-time.After(5 * time.Second):
		t.Fatal("the search never reached the backend")
	}
	cancel()
	select {
	case code := <-done:
		if code != exitInterrupted {
			t.Errorf("exit %d; want 130", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("search did not end after the context was cancelled")
	}
	var out errorJSON
	if err := json.Unmarshal([]byte(stdout.String()), &out); err != nil || out.OK || out.Error.Reason != refusal.Cancelled {
		t.Errorf("stdout %q (%v); want one error object, reason cancelled", stdout.String(), err)
	}
	if stderr.String() != "" {
		t.Errorf("stderr %q; want nothing under --json", stderr.String())
	}
}
