// Package archtest holds the test that docs/ARCHITECTURE.md's package
// graph is the import graph of the code. It has no code of its own.
package archtest
