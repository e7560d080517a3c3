//go:build !linux

package netrange

func threadCPU() (ns int64, ok bool) { return 0, false }
