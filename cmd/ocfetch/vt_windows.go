//go:build windows

package main

import "golang.org/x/sys/windows"

// escapesShown reports whether the console v shows ANSI escape
// sequences (the progress bar's "erase to the end of the line") as what
// they mean rather than as characters: it turns on
// ENABLE_VIRTUAL_TERMINAL_PROCESSING, which a console window does not have
// until a program asks (Windows 10 1511 and later; older consoles refuse,
// and get no bar).
func escapesShown(v any) bool {
	ok := false
	withFd(v, func(fd int) {
		h := windows.Handle(fd)
		var mode uint32
		if windows.GetConsoleMode(h, &mode) != nil {
			return
		}
		if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
			ok = true
			return
		}
		ok = windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
	})
	return ok
}
