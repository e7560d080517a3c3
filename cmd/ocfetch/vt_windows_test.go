package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEscapesShownNotAConsole: a file or pipe is no console, so it has no
// escape processing to turn on (the bar is drawn only on a terminal
// anyway). Needs Windows's console API: Windows only.
func TestEscapesShownNotAConsole(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if escapesShown(f) {
		t.Error("escapesShown(a file) = true")
	}
	if escapesShown(nil) {
		t.Error("escapesShown(nil) = true")
	}
}
