package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Info is one build of ocfetch, as `ocfetch version --json` prints it. An
// unknown Commit or Date is "".
type Info struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

// Current returns this binary's build: version, commit and date as linked
// in where set, else the build info's, else "(devel)" and ""; the Go
// version and platform of the running binary.
func Current(version, commit, date string) Info {
	info, ok := debug.ReadBuildInfo()
	return Resolve(Info{Version: version, Commit: commit, Date: date, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}, info, ok)
}

// Resolve fills what the linker left empty in b from the module's
// build info: `go install …/cmd/ocfetch@v0.2.0` records Main.Version
// "v0.2.0"; a build in a git checkout records "(devel)" (Go before 1.24)
// or a pseudo-version, and vcs.revision and vcs.time.
func Resolve(b Info, info *debug.BuildInfo, ok bool) Info {
	if ok && info != nil {
		if b.Version == "" && info.Main.Version != "" {
			b.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Commit == "":
				b.Commit = s.Value
			case s.Key == "vcs.time" && b.Date == "":
				b.Date = s.Value
			}
		}
	}
	if b.Version == "" {
		b.Version = "(devel)"
	}
	return b
}

// String is "ocfetch VERSION [(commit COMMIT, DATE)] GOVERSION
// OS/ARCH", the commit shortened to 12 digits; what is unknown is left out.
func (b Info) String() string {
	var extra []string
	if b.Commit != "" {
		c := b.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		extra = append(extra, "commit "+c)
	}
	if b.Date != "" {
		extra = append(extra, "built "+b.Date)
	}
	v := b.Version
	if len(extra) > 0 {
		v += " (" + strings.Join(extra, ", ") + ")"
	}
	return fmt.Sprintf("ocfetch %s %s %s/%s", v, b.Go, b.OS, b.Arch)
}
