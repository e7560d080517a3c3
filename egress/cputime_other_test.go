//go:build !linux

package egress

func threadCPU() (ns int64, ok bool) { return 0, false }
