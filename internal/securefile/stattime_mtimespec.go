//go:build darwin || ios || freebsd || netbsd

package securefile

import "syscall"

func statTimes(st *syscall.Stat_t) (mtime, ctime int64, ok bool) {
	return st.Mtimespec.Nano(), st.Ctimespec.Nano(), true
}
