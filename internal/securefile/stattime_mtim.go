//go:build linux || android || openbsd || solaris || illumos || dragonfly

package securefile

import "syscall"

func statTimes(st *syscall.Stat_t) (mtime, ctime int64, ok bool) {
	return st.Mtim.Nano(), st.Ctim.Nano(), true
}
