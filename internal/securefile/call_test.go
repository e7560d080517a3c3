package securefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func loadIn(t *testing.T, c *Cache[string], call *Call, path, want string) {
	t.Helper()
	got, err := c.LoadIn(call, path)
	if err != nil || got != want {
		t.Fatalf("LoadIn(%s) = %q, %v; want %q", filepath.Base(path), got, err, want)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCallChecksOncePerCall: within one Call the files of a directory
// share one check of the directory, and a file loaded twice is the first
// load's snapshot (an edit in between is not seen); the next Call sees
// the edit.
func TestCallChecksOncePerCall(t *testing.T) { bothPaths(t, testCallChecksOncePerCall) }

func testCallChecksOncePerCall(t *testing.T) {
	if !cacheable {
		t.Skip("nothing is cached on " + runtime.GOOS)
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	write(t, a, "a")
	write(t, b, "b")
	c, n := counting(t, time.Hour)

	call := NewCall()
	loadIn(t, c, call, a, "a")
	loadIn(t, c, call, b, "b")
	if len(call.dirs) != 1 || call.dirs[0].path != dir {
		t.Errorf("directories checked in the call: %+v; want one, %s", call.dirs, dir)
	}
	write(t, a, "edited")
	loadIn(t, c, call, a, "a") // the call's snapshot
	if *n != 2 {
		t.Errorf("decoded %d times in one call, want 2", *n)
	}
	loadIn(t, c, NewCall(), a, "edited")
	loadIn(t, c, nil, a, "edited")
}

// TestCallSeesDirectoryReplaced: after a call has checked a directory and
// its files, the directory at the path is replaced (by another directory,
// a symlink to one, nothing); the next call sees the new files, or fails
// closed with the error ReadFile gives, named.
func TestCallSeesDirectoryReplaced(t *testing.T) { bothPaths(t, testCallSeesDirectoryReplaced) }

func testCallSeesDirectoryReplaced(t *testing.T) {
	if !cacheable {
		t.Skip("nothing is cached on " + runtime.GOOS)
	}
	for _, tc := range []struct {
		name    string
		replace func(t *testing.T, dir, other string)
		want    string // the new a.json; "" when an error is wanted
		wantErr []error
	}{
		{"another directory", func(t *testing.T, dir, other string) {
			mustRename(t, dir, dir+".old")
			mustRename(t, other, dir)
		}, "new a", nil},
		{"a symlink to another directory", func(t *testing.T, dir, other string) {
			mustRename(t, dir, dir+".old")
			if err := os.Symlink(other, dir); err != nil {
				t.Fatal(err)
			}
		}, "", []error{ErrSymlink, ErrNotDir}},
		{"renamed away", func(t *testing.T, dir, _ string) {
			mustRename(t, dir, dir+".old")
		}, "", []error{fs.ErrNotExist}},
		{"a file", func(t *testing.T, dir, _ string) {
			mustRename(t, dir, dir+".old")
			write(t, dir, "not a directory")
		}, "", []error{ErrNotDir}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir, other := filepath.Join(base, ".oc_chat"), filepath.Join(base, "other")
			for _, d := range []string{dir, other} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			write(t, filepath.Join(dir, "a.json"), "old a")
			write(t, filepath.Join(dir, "b.json"), "old b")
			write(t, filepath.Join(other, "a.json"), "new a") // same size as the old one
			write(t, filepath.Join(other, "b.json"), "new b")
			c, _ := counting(t, time.Hour)
			a := filepath.Join(dir, "a.json")
			loadIn(t, c, NewCall(), a, "old a")
			loadIn(t, c, NewCall(), filepath.Join(dir, "b.json"), "old b")
			loadIn(t, c, NewCall(), a, "old a") // a snapshot now

			tc.replace(t, dir, other)
			call := NewCall()
			got, err := c.LoadIn(call, a)
			if tc.wantErr == nil {
				if err != nil || got != tc.want {
					t.Fatalf("next call: %q, %v; want %q", got, err, tc.want)
				}
				loadIn(t, c, call, filepath.Join(dir, "b.json"), "new b")
				return
			}
			for _, w := range tc.wantErr {
				if !errors.Is(err, w) {
					t.Errorf("next call: %q, %v; want an error wrapping %v", got, err, w)
				}
			}
			if err != nil && !containsPath(err, a) {
				t.Errorf("error %q does not name %s", err, a)
			}
			// The same as an uncached read says.
			_, rerr := ReadFile(a, 64)
			if err == nil || rerr == nil || err.Error() != rerr.Error() {
				t.Errorf("cached: %v; ReadFile: %v", err, rerr)
			}
		})
	}
}

// TestKeptSeesDirectoryReplaced: a kept append descriptor is not used
// once the log's directory is replaced or turned into a symlink, even by
// a directory holding a file of the same name.
func TestKeptSeesDirectoryReplaced(t *testing.T) {
	if !cacheable {
		t.Skip("nothing is kept on " + runtime.GOOS)
	}
	for _, symlink := range []bool{false, true} {
		base := t.TempDir()
		dir, other := filepath.Join(base, ".oc_chat"), filepath.Join(base, "other")
		if err := os.Mkdir(other, 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(other, "audit.jsonl"), "")
		path := filepath.Join(dir, "audit.jsonl")
		f, err := OpenAppend(path, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		Keep(path, f)
		if !KeptReadyIn(NewCall(), path) {
			t.Fatal("KeptReadyIn = false for the descriptor just kept")
		}
		mustRename(t, dir, dir+".old")
		if symlink {
			if err := os.Symlink(other, dir); err != nil {
				t.Fatal(err)
			}
		} else {
			mustRename(t, other, dir)
		}
		if KeptReadyIn(NewCall(), path) {
			t.Errorf("symlink %v: KeptReadyIn = true after the directory was replaced", symlink)
		}
		if ok, _ := AppendKept(path, []byte("x\n")); ok && symlink {
			t.Errorf("AppendKept wrote through a symlinked directory")
		}
	}
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func containsPath(err error, path string) bool {
	return err != nil && strings.Contains(err.Error(), path)
}
