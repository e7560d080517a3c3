// Package buildinfo says which build of ocfetch is running: its version,
// commit and build date, from the values a release build links into the
// binary, else from the module's build info (go install …@v1.2.3 records
// the version; a build in a git checkout the commit and its time), else
// "(devel)". [Info] is what `ocfetch version --json` prints, and
// [Info.String] the line `ocfetch version` and `ocfetch --version` print.
//
// Wiring (cmd/ocfetch does this; the link-time values stay in package main,
// where a release build's -X main.version=… sets them):
//
//	var version, commit, date string // set with -ldflags -X
//	b := buildinfo.Current(version, commit, date)
//	fmt.Println(b) // ocfetch 1.2.3 (commit 0123456789ab, built …) go1.24.1 linux/amd64
package buildinfo
