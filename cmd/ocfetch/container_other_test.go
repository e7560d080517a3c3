//go:build !linux

package main

import (
	"fmt"
	"os"
)

// mountedName is Linux's (container_linux_test.go): mount namespaces.
const mountedName = "ocfetch-mounted"

func mountedMain() {
	fmt.Fprintln(os.Stderr, mountedName+": mount namespaces are Linux's")
	os.Exit(125)
}
