package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/buildinfo"
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

// currentBuild is this binary's build, from the link-time values above.
func currentBuild() buildinfo.Info { return buildinfo.Current(version, commit, date) }

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
			fmt.Fprintln(a.stdout, currentBuild())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"version", "commit", "date", "go", "os", "arch"}`)
	return cmd
}
