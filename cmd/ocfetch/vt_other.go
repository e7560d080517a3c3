//go:build !windows

package main

// escapesShown is true: a terminal here interprets ANSI escape sequences.
func escapesShown(any) bool { return true }
