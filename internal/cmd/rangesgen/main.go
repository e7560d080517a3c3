// Command rangesgen generates netrange/ranges_gen.go, the tables of address
// ranges the egress guard refuses, from the IANA IPv4 and IPv6
// Special-Purpose Address Registries (their CSV exports, kept verbatim in
// netrange/testdata) and ocfetch's small supplement (multicast and the IPv6
// space outside 2000::/3, plus display names).
//
// It is run by go generate in package netrange:
//
//	//go:generate go run ../internal/cmd/rangesgen -v4 testdata/iana-ipv4-special-registry-1.csv -v6 testdata/iana-ipv6-special-registry-1.csv -supplement testdata/ocfetch-supplement.csv -o ranges_gen.go
//
// To refresh the tables, replace the two registry files with the current
// exports from https://www.iana.org/assignments/iana-ipv4-special-registry/
// and https://www.iana.org/assignments/iana-ipv6-special-registry/ and run
// go generate ./netrange. A test in this package fails when the committed
// ranges_gen.go differs from what the inputs generate.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "rangesgen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("rangesgen", flag.ContinueOnError)
	v4 := fs.String("v4", "", "IANA IPv4 special-purpose registry CSV")
	v6 := fs.String("v6", "", "IANA IPv6 special-purpose registry CSV")
	supp := fs.String("supplement", "", "ocfetch supplement CSV")
	out := fs.String("o", "", "output Go file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *v4 == "" || *v6 == "" || *supp == "" || *out == "" || fs.NArg() != 0 {
		return fmt.Errorf("usage: rangesgen -v4 FILE -v6 FILE -supplement FILE -o FILE")
	}
	src, err := generateFiles(Inputs{V4: *v4, V6: *v6, Supplement: *supp})
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(*out); err == nil && bytes.Equal(old, src) {
		return nil
	}
	return os.WriteFile(*out, src, 0o644)
}
