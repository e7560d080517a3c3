//go:build unix

package shellrun

import (
	"os"
	"os/signal"
	"syscall"
)

// notifySignals sends the signals Run forwards to the command to ch.
func notifySignals(ch chan<- os.Signal) {
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
}

// forwardSignal passes sig on to the command.
func forwardSignal(p *os.Process, sig os.Signal) { p.Signal(sig) }

// terminate asks the command to end (SIGTERM); exec's WaitDelay kills it
// if it does not.
func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }

// signalStatus reports the number of the signal that ended the process.
func signalStatus(ps *os.ProcessState) (int, bool) {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return int(ws.Signal()), true
	}
	return 0, false
}
