package main

import (
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether v is an *os.File that is a terminal
// (golang.org/x/term: a tcgetattr on Unix, GetConsoleMode on Windows). A
// character device is not enough: /dev/null is one, and `ocfetch get URL
// </dev/null` typed at a terminal must find nobody to ask, not read end of
// file as the user's answer.
func isTerminal(v any) bool {
	ok := false
	withFd(v, func(fd int) { ok = term.IsTerminal(fd) })
	return ok
}

// terminalWidth returns the columns of the terminal v is, or 0 when v is
// not a terminal or its size is unknown.
func terminalWidth(v any) int {
	cols := 0
	withFd(v, func(fd int) {
		if w, _, err := term.GetSize(fd); err == nil {
			cols = w
		}
	})
	return cols
}

// withFd calls fn with v's descriptor when v is an *os.File, without
// switching the file to blocking mode as f.Fd() would.
func withFd(v any, fn func(fd int)) {
	f, ok := v.(*os.File)
	if !ok || f == nil {
		return
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) { fn(int(fd)) })
}
