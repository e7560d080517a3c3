package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version, commit and date are set at link time by a release build
// (.goreleaser.yaml: -X main.version=1.2.3 -X main.commit=… -X main.date=…);
// otherwise they come from the module's build info (go install …@v1.2.3
// sets the version; a build in a git checkout sets vcs.revision and
// vcs.time).
var (
	version = ""
	commit  = ""
	date    = ""
)

// buildInfo is what `ocfetch version --json` prints.
type buildInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

// currentBuild returns this binary's version, commit and date: the link
// time values where set, else the build info's, else "(devel)" and "".
func currentBuild() buildInfo {
	info, ok := debug.ReadBuildInfo()
	return resolveBuild(buildInfo{Version: version, Commit: commit, Date: date, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}, info, ok)
}

// resolveBuild fills what the linker left empty in b from the module's
// build info: `go install …/cmd/ocfetch@v0.2.0` records Main.Version
// "v0.2.0"; a build in a git checkout records "(devel)" (Go before 1.24)
// or a pseudo-version, and vcs.revision and vcs.time.
func resolveBuild(b buildInfo, info *debug.BuildInfo, ok bool) buildInfo {
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

// plainVersion is the version alone ("1.2.3", "(devel)"), as the MCP server
// reports it to clients.
func plainVersion() string { return currentBuild().Version }

func newVersionCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the ocfetch version, commit and build date",
		Example: `  ocfetch version
  ocfetch version --json | jq -r .version`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON {
				out, err := json.Marshal(currentBuild())
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "%s\n", out)
				return nil
			}
			fmt.Fprintln(a.stdout, versionString())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"version", "commit", "date", "go", "os", "arch"}`)
	return cmd
}

// versionString is "ocfetch VERSION [(commit COMMIT, DATE)] GOVERSION
// OS/ARCH", the commit shortened to 12 digits; what is unknown is left out.
func versionString() string {
	b := currentBuild()
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
