package strictjson

import (
	"encoding/binary"
	"testing"
)

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
