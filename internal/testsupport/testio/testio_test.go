package testio

import (
	"strings"
	"sync"
	"testing"
)

// TestSyncBufferConcurrent writes from several goroutines while reading;
// under -race it fails if the buffer is not guarded.
func TestSyncBufferConcurrent(t *testing.T) {
	var s SyncBuffer
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				if n, err := s.Write([]byte("ab")); n != 2 || err != nil {
					t.Errorf("Write: got %d, %v; want 2, nil", n, err)
				}
				_ = s.String()
			}
		}()
	}
	wg.Wait()
	if got, want := s.String(), strings.Repeat("ab", 400); got != want {
		t.Errorf("got %d bytes; want %d bytes of \"ab\"", len(got), len(want))
	}
}
