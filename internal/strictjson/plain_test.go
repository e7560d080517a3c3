package strictjson

import (
	"encoding/binary"
	"testing"
)

// plain8 reports whether each of the eight bytes in x is plain, by
// notPlain.
func plain8(x uint64) bool { return notPlain(x) == 0 }

// plain8Want is plain8's definition: each of the word's eight bytes is
// plain.
func plain8Want(x uint64) bool {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], x)
	for _, c := range b {
		if !plain[c] {
			return false
		}
	}
	return true
}

func TestPlainTable(t *testing.T) {
	for c := range 256 {
		want := c >= 0x20 && c != '"' && c != '\\'
		if plain[c] != want {
			t.Errorf("plain[%#x] = %v; want %v", c, plain[c], want)
		}
	}
}

// TestPlain8 puts every byte value at every position of a word of plain
// bytes, and after a byte that borrows (0x00, 0x1f, '"', '\\'), and
// checks plain8 against the table.
func TestPlain8(t *testing.T) {
	for _, fill := range []byte{'a', 0x20, 0x21, 0x7f, 0x80, 0xff, '"' + 1, '\\' + 1, '"' - 1, '\\' - 1} {
		for pos := range 8 {
			for c := range 256 {
				var b [8]byte
				for i := range b {
					b[i] = fill
				}
				b[pos] = byte(c)
				x := binary.LittleEndian.Uint64(b[:])
				if got, want := plain8(x), plain8Want(x); got != want {
					t.Fatalf("plain8(% x) = %v; want %v", b, got, want)
				}
				for _, low := range []byte{0, 0x1f, '"', '\\'} {
					for lp := range pos {
						b2 := b
						b2[lp] = low
						x := binary.LittleEndian.Uint64(b2[:])
						if got, want := plain8(x), plain8Want(x); got != want {
							t.Fatalf("plain8(% x) = %v; want %v", b2, got, want)
						}
					}
				}
			}
		}
	}
}

func FuzzPlain8(f *testing.F) {
	for _, seed := range []uint64{0, 0x2020202020202020, 0x6161616161616122, 0x5c00000000000000, 0x8080808080808080, 0x1f21212121212121} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, x uint64) {
		if got, want := plain8(x), plain8Want(x); got != want {
			t.Fatalf("plain8(%#016x) = %v; want %v", x, got, want)
		}
	})
}

// plainRunWant is plainRun's definition: the first byte at or after i
// that the table does not call plain.
func plainRunWant(data []byte, i int) int {
	for i < len(data) && plain[data[i]] {
		i++
	}
	return i
}

// TestPlainRun puts each byte that ends a run at every position of
// texts around the word and step sizes, after plain bytes of every kind
// (ASCII, 0x7f, UTF-8's high bytes), and checks plainRun against the
// byte loop from every start.
func TestPlainRun(t *testing.T) {
	for _, fill := range []byte{'a', 0x20, 0x7f, 0x80, 0xff, '"' + 1, '\\' + 1} {
		for n := range 40 {
			for pos := range n + 1 {
				for _, stop := range []byte{'"', '\\', 0, 0x1f} {
					b := make([]byte, n)
					for i := range b {
						b[i] = fill
					}
					if pos < n {
						b[pos] = stop
					}
					for start := range n + 1 {
						if got, want := plainRun(b, start), plainRunWant(b, start); got != want {
							t.Fatalf("plainRun(%q, %d) = %d; want %d", b, start, got, want)
						}
					}
				}
			}
		}
	}
}

// FuzzPlainRun compares plainRun with the byte loop on any text, from
// any start.
func FuzzPlainRun(f *testing.F) {
	for _, seed := range []string{"", `abc"`, "0123456789abcdef\\x", "0123456789abcdefghijklmnopqrstu\x01v", "h\u00e9llo w\u00f6rld, \u65e5\u672c\"", "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x00"} {
		f.Add([]byte(seed), uint8(0))
	}
	f.Fuzz(func(t *testing.T, b []byte, start uint8) {
		i := int(start) % (len(b) + 1)
		if got, want := plainRun(b, i), plainRunWant(b, i); got != want {
			t.Fatalf("plainRun(%q, %d) = %d; want %d", b, i, got, want)
		}
	})
}
