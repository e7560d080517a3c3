package securefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// counting returns a cache whose decode returns the file's text (or the
// read error) and counts the reads it decodes.
func counting(t *testing.T, clock time.Duration) (*Cache[string], *int) {
	t.Helper()
	n := new(int)
	var mu sync.Mutex
	c := NewCache(64, 8, func(_ string, data []byte, fi fs.FileInfo, err error) (string, error) {
		mu.Lock()
		*n++
		mu.Unlock()
		if err != nil {
			return "", err
		}
		if fi == nil || !fi.Mode().IsRegular() {
			t.Errorf("decode got FileInfo %v for %q", fi, data)
		}
		return string(data), nil
	})
	if clock != 0 {
		c.now = func() time.Time { return time.Now().Add(clock) }
	}
	return c, n
}

// rewriteInPlace writes data over path without changing its inode, then
// sets its mtime (and atime) to mtime.
func rewriteInPlace(t *testing.T, path, data string, mtime time.Time) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// nextCtimeTick changes path's ctime (chmod to the same mode) until the
// file system's clock shows a new value, so that a rewrite that follows
// is not in the same timestamp tick as the read before it. In real use the
// racy window guarantees this; a test that moves the cache's clock ahead
// must make it true of the file. It spins; it does not sleep.
func nextCtimeTick(t *testing.T, path string) {
	t.Helper()
	c0 := ctimeOf(t, path)
	deadline := time.Now().Add(5 * time.Second)
	for ctimeOf(t, path) == c0 {
		if time.Now().After(deadline) {
			t.Fatal("the file system's ctime did not move in 5 s")
		}
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func ctimeOf(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	id, ok := identity(fi)
	if !ok {
		t.Skip("no file identity on this platform: nothing is cached")
	}
	return id.ctime
}

func load(t *testing.T, c *Cache[string], path, want string) {
	t.Helper()
	got, err := c.Load(path)
	if err != nil || got != want {
		t.Fatalf("Load = %q, %v; want %q", got, err, want)
	}
}

// TestCacheSeesSameSizeRewrite is the racy-clean case: a file rewritten in
// place with the same size and its mtime forged (set back to the value it
// had, or into the future) is seen on the next call, inside the racy window
// (the read was just now) and outside it (the cache's clock an hour
// ahead, so that the snapshot is trusted and only ctime tells).
func TestCacheSeesSameSizeRewrite(t *testing.T) { bothPaths(t, testCacheSeesSameSizeRewrite) }

func testCacheSeesSameSizeRewrite(t *testing.T) {
	if !cacheable {
		t.Skip("nothing is cached on " + runtime.GOOS)
	}
	forged := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, tc := range []struct {
		name   string
		clock  time.Duration
		mtime  time.Time
		second time.Time
	}{
		{"inside the window, mtime set back", 0, time.Now(), time.Time{}},
		{"inside the window, mtime an hour old", 0, forged, forged},
		{"outside the window, mtime an hour old, kept", time.Hour, forged, forged},
		{"outside the window, mtime set into the future", time.Hour, forged, time.Now().Add(time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "policy.json")
			if err := os.WriteFile(path, []byte(`{"port":3000}`), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(path, tc.mtime, tc.mtime); err != nil {
				t.Fatal(err)
			}
			c, _ := counting(t, tc.clock)
			load(t, c, path, `{"port":3000}`)
			second := tc.second
			if second.IsZero() {
				fi, _ := os.Stat(path)
				second = fi.ModTime()
			}
			if tc.clock != 0 {
				nextCtimeTick(t, path)
			}
			rewriteInPlace(t, path, `{"port":4000}`, second)
			load(t, c, path, `{"port":4000}`)
			rewriteInPlace(t, path, `{"port":5000}`, second)
			load(t, c, path, `{"port":5000}`)
		})
	}
}

// TestCacheReusesUnchanged: a file unchanged since a read outside the racy
// window is not read again; one inside it is read on every call — unless
// change notification covers it (a same-size rewrite inside the window is
// reported, where a stat could not tell it).
func TestCacheReusesUnchanged(t *testing.T) {
	if !cacheable {
		t.Skip("nothing is cached on " + runtime.GOOS)
	}
	for _, tc := range []struct {
		name   string
		clock  time.Duration
		notify bool
		reads  int
	}{
		{"outside the window, stats", time.Hour, false, 1},
		{"inside the window, stats", 0, false, 3},
		{"outside the window, notified", time.Hour, true, 1},
		{"inside the window, notified", 0, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.notify {
				requireNotify(t)
			} else {
				withoutNotify(t)
			}
			path := filepath.Join(t.TempDir(), "rules.json")
			if err := os.WriteFile(path, []byte("a"), 0o644); err != nil {
				t.Fatal(err)
			}
			c, n := counting(t, tc.clock)
			for range 3 {
				load(t, c, path, "a")
			}
			if *n != tc.reads {
				t.Errorf("decoded %d times, want %d", *n, tc.reads)
			}
		})
	}
}

// TestCacheFailsClosed: every change the uncached read refuses is refused
// on the next call, with ReadFile's error; a restored file is read again.
func TestCacheFailsClosed(t *testing.T) { bothPaths(t, testCacheFailsClosed) }

func testCacheFailsClosed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir, path string)
		want   error
	}{
		{"deleted", func(t *testing.T, dir, path string) { must(t, os.Remove(path)) }, fs.ErrNotExist},
		{"replaced by a symlink", func(t *testing.T, dir, path string) {
			other := filepath.Join(t.TempDir(), "other")
			must(t, os.WriteFile(other, []byte("b"), 0o644))
			must(t, os.Remove(path))
			must(t, os.Symlink(other, path))
		}, ErrSymlink},
		{"replaced by a directory", func(t *testing.T, dir, path string) {
			must(t, os.Remove(path))
			must(t, os.Mkdir(path, 0o755))
		}, ErrNotRegular},
		{"grown past the limit", func(t *testing.T, dir, path string) {
			must(t, os.WriteFile(path, make([]byte, 65), 0o644))
		}, ErrTooLarge},
		{"directory replaced by a symlink to a copy", func(t *testing.T, dir, path string) {
			moved := filepath.Join(t.TempDir(), "moved")
			must(t, os.Rename(dir, moved))
			must(t, os.Symlink(moved, dir))
		}, ErrSymlink},
		{"directory removed", func(t *testing.T, dir, path string) { must(t, os.RemoveAll(dir)) }, fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".oc_chat")
			must(t, os.Mkdir(dir, 0o755))
			path := filepath.Join(dir, "local_fetch.json")
			must(t, os.WriteFile(path, []byte("a"), 0o644))
			c, _ := counting(t, time.Hour) // snapshots trusted: only the stats tell
			load(t, c, path, "a")
			load(t, c, path, "a")
			tc.change(t, dir, path)
			for range 2 { // refused, and still refused from the snapshot
				if v, err := c.Load(path); !errors.Is(err, tc.want) {
					t.Fatalf("Load after the change = %q, %v; want %v", v, err, tc.want)
				} else if _, rerr := ReadFile(path, 64); rerr == nil || rerr.Error() != err.Error() {
					t.Fatalf("Load's error %q differs from ReadFile's %v", err, rerr)
				}
			}
			// Restore: the next call sees the file again.
			if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				must(t, os.Remove(dir))
			}
			must(t, os.RemoveAll(path))
			must(t, os.MkdirAll(dir, 0o755))
			must(t, os.WriteFile(path, []byte("c"), 0o644))
			load(t, c, path, "c")
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestCacheMissingIsSnapshot: a missing file, and a missing directory,
// are answered from the snapshot until they appear.
func TestCacheMissingIsSnapshot(t *testing.T) { bothPaths(t, testCacheMissingIsSnapshot) }

func testCacheMissingIsSnapshot(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "ocfetch")
	path := filepath.Join(dir, "policy.json")
	c, n := counting(t, time.Hour)
	for range 3 {
		if _, err := c.Load(path); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("missing directory: %v", err)
		}
	}
	must(t, os.Mkdir(dir, 0o755))
	for range 3 {
		if _, err := c.Load(path); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("missing file: %v", err)
		}
	}
	must(t, os.WriteFile(path, []byte("x"), 0o644))
	load(t, c, path, "x")
	if cacheable && *n != 3 { // missing dir, missing file, the file
		t.Errorf("decoded %d times, want 3", *n)
	}
}

// TestCacheCapAndConcurrency: the cache holds at most its cap of files
// and serves concurrent calls while a file is rewritten (run with -race).
func TestCacheCapAndConcurrency(t *testing.T) {
	dir := t.TempDir()
	c, _ := counting(t, time.Hour)
	var paths []string
	for i := range 20 {
		p := filepath.Join(dir, string(rune('a'+i)))
		must(t, os.WriteFile(p, []byte("v"), 0o644))
		paths = append(paths, p)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				p := paths[(i+g)%len(paths)]
				if v, err := c.Load(p); err != nil || (v != "v" && v != "w") {
					t.Errorf("Load(%s) = %q, %v", p, v, err)
					return
				}
			}
		}()
	}
	for range 20 {
		must(t, WriteFile(paths[0], []byte("w"), 0o644))
	}
	wg.Wait()
	load(t, c, paths[0], "w")
	c.mu.Lock()
	n := len(c.entries)
	c.mu.Unlock()
	if n > 8 {
		t.Errorf("%d entries, cap 8", n)
	}
}

// TestCacheSlots: files that share a slot of Cache.recent (twice as
// many files as slots) each get their own snapshot, a forgotten one is
// read again, and an edit is seen through a slot as through the map.
func TestCacheSlots(t *testing.T) {
	reads := 0
	c := NewCache(64, 16, func(_ string, data []byte, _ fs.FileInfo, err error) (string, error) {
		reads++
		return string(data), err
	})
	c.now = func() time.Time { return time.Now().Add(time.Hour) } // no file racy: every one kept
	dir := t.TempDir()
	var paths []string
	for i := range 2 * len(c.recent) { // the cache's cap: none evicted
		p := filepath.Join(dir, string(rune('a'+i)))
		must(t, os.WriteFile(p, []byte{byte('a' + i)}, 0o644))
		paths = append(paths, p)
	}
	for range 3 {
		for i, p := range paths {
			load(t, c, p, string(rune('a'+i)))
		}
	}
	if reads != len(paths) {
		t.Errorf("%d reads of %d unchanged files in 3 rounds; want %d", reads, len(paths), len(paths))
	}
	must(t, WriteFile(paths[3], []byte("edited"), 0o644))
	load(t, c, paths[3], "edited")
	c.Forget()
	for i, p := range paths {
		if i == 3 {
			load(t, c, p, "edited")
			continue
		}
		load(t, c, p, string(rune('a'+i)))
	}
	if want := 2*len(paths) + 1; reads != want {
		t.Errorf("%d reads after Forget; want %d (each file read again once)", reads, want)
	}
}
