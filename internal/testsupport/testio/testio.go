// Package testio holds the I/O helpers ocfetch's tests share, in the
// spirit of testing/iotest.
//
// Wiring, in a test that reads a command's stderr while it runs:
//
//	var stderr testio.SyncBuffer
//	cmd.Stderr = &stderr
//	// ... later, from the test goroutine:
//	if strings.Contains(stderr.String(), "panic") { ... }
package testio

import (
	"bytes"
	"sync"
)

// SyncBuffer is a bytes.Buffer that one goroutine may write (a command, a
// process's stderr copier, a log handler) while another reads it. Its zero
// value is an empty buffer ready to use.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what has been written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
