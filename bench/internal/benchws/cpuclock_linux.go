package benchws

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// cpuclockSched is CPUCLOCK_SCHED, the clock of a process's runtime.
const cpuclockSched = 2

// processClock reads the CPU-time clock of process pid: the clock id
// clock_getcpuclockid(3) returns for it (MAKE_PROCESS_CPUCLOCK(pid,
// CPUCLOCK_SCHED) in the kernel's posix-timers.h). pid 0 would be the
// calling process's clock, and a negative pid another clock altogether:
// only a positive pid is read.
func processClock(pid int) (time.Duration, error) {
	if pid <= 0 {
		return 0, fmt.Errorf("process CPU clock: pid %d", pid)
	}
	var ts unix.Timespec
	if err := unix.ClockGettime((^int32(pid))<<3|cpuclockSched, &ts); err != nil {
		return 0, err
	}
	return time.Duration(ts.Nano()), nil
}
