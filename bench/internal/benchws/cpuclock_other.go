//go:build !linux

package benchws

import (
	"errors"
	"time"
)

// processClock reads nothing here: the bench drivers run on Linux.
func processClock(int) (time.Duration, error) {
	return 0, errors.New("no process CPU clock on this system")
}
