//go:build unix

package search

import (
	"errors"
	"io/fs"
)

// checkKeyMode refuses a key file that anyone but its owner may read or
// write: a key readable by the group is a key shared.
func checkKeyMode(m fs.FileMode) error {
	if m.Perm()&0o077 != 0 {
		return errors.New("may be read or written by others (mode " + m.Perm().String() + ")")
	}
	return nil
}
