//go:build unix

package main

import "os"

// openControllingTerminal opens the terminal that started this process
// (/dev/tty), for ocfetch run's questions: the command's own stdin and
// stdout may be files or pipes, and the question still reaches the person
// at the terminal. ok is false without one (a service, a CI job, setsid).
func openControllingTerminal() (*os.File, bool) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, false
	}
	if !isTerminal(f) {
		f.Close()
		return nil, false
	}
	return f, true
}
