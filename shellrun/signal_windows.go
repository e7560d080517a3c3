//go:build windows

package shellrun

import (
	"os"
	"os/signal"
)

// notifySignals catches Ctrl-C and Ctrl-Break (os.Interrupt) so that they
// do not end Run: the console delivers them to the command too, which
// decides how to stop, and Run returns its status.
func notifySignals(ch chan<- os.Signal) { signal.Notify(ch, os.Interrupt) }

// forwardSignal does nothing: Windows has no signals to send to another
// process, and the console has already delivered Ctrl-C to the command.
func forwardSignal(*os.Process, os.Signal) {}

// terminate ends the command (TerminateProcess).
func terminate(p *os.Process) error { return p.Kill() }

// signalStatus is false: a Windows process ends with an exit code only.
func signalStatus(*os.ProcessState) (int, bool) { return 0, false }
