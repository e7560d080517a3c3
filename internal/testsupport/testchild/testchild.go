// Package testchild prepares a test binary's environment for the child
// processes its tests start: the binary itself run again (reexec parts:
// the PDF extractor, the sandbox's first process) or other Go programs.
//
//	func TestMain(m *testing.M) {
//		reexec.Init()
//		testchild.QuickRaceExit()
//		…
//	}
package testchild

import (
	"os"
	"strings"
)

// QuickRaceExit sets atexit_sleep_ms=0 in GORACE for the children the
// test starts (it changes nothing for the running binary, whose race
// runtime has read GORACE already). Built with -race, every Go process
// otherwise sleeps a second at exit (the race runtime's default
// atexit_sleep_ms, a wait for reports from other threads), which makes
// each child of a test take at least a second. A race a child finds is
// still reported, and still fails it (exit status 66). A GORACE that
// sets atexit_sleep_ms already is left alone.
func QuickRaceExit() {
	v := os.Getenv("GORACE")
	if strings.Contains(v, "atexit_sleep_ms") {
		return
	}
	os.Setenv("GORACE", strings.TrimSpace(v+" atexit_sleep_ms=0"))
}
