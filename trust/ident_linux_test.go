package trust

import (
	"github.com/ocfetch/ocfetch/workspace"
	"testing"
)

// statx gives the identity stat(2) gives — so the entries of an older
// ocfetch, which recorded stat's, still compare — and, on this test's
// file system, usually a birth time.
func TestIdentifyMatchesStat(t *testing.T) {
	dir := t.TempDir()
	got, err := identify(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := statIdent(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.id != want.id {
		t.Errorf("statx identity %q; stat's %q", got.id, want.id)
	}
	if got.birth == "" {
		t.Logf("the file system of %s records no birth time", dir)
	}
	if _, err := identify(dir + "/missing"); err == nil {
		t.Error("identify of a missing directory succeeded")
	}
}

// BenchmarkIdentify is the identity check alone: stat(2) (what the
// previous version did), statx(2) with the birth time (what Trusted does
// now where the file system has one) and the marker fallback (stat and a
// read of .oc_chat/trust_marker through an os.Root).
func BenchmarkIdentify(b *testing.B) {
	dir := b.TempDir()
	data, inc := newMarker()
	e := Entry{Path: dir, Incarnation: inc}
	b.Run("stat", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := statIdent(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("statx", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := identify(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	if err := writeMarkerForBench(dir, data); err != nil {
		b.Fatal(err)
	}
	id, _ := identify(dir)
	e.ID = id.id
	b.Run("marker", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if e.state(dir) != Present {
				b.Fatal("marker does not match")
			}
		}
	})
}

func writeMarkerForBench(root string, data []byte) error {
	return workspace.WriteFileAtomic(markerPath(root), data, filePerm)
}

func TestBirthOf(t *testing.T) {
	for _, tc := range []struct {
		sec, nsec int64
		want      string
	}{
		{1796158028, 498590335, "1796158028.498590335"},
		{1796158028, 5, "1796158028.000000005"},
		{1, 0, "1.000000000"},
		{0, 0, ""},  // macOS: none recorded
		{-1, 0, ""}, // FreeBSD: none recorded
		{1, 1e9, ""},
	} {
		if got := birthOf(tc.sec, tc.nsec); got != tc.want {
			t.Errorf("birthOf(%d, %d) = %q; want %q", tc.sec, tc.nsec, got, tc.want)
		}
	}
	if got := devIno(65024, 9980514); got != "65024:9980514" {
		t.Errorf("devIno = %q", got)
	}
}
