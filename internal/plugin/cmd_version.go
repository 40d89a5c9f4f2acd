package plugin

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nodeslo/nodeslo-controller/internal/version"
)

// addVersion gives the plugin `kubectl nodeslo version [-o json|yaml]` and
// `kubectl nodeslo --version`, both of which print the version stamped in
// at build time, so that a bug report can name the build.
func addVersion(root *cobra.Command, streams IOStreams) {
	root.Version = version.String()
	root.SetVersionTemplate("kubectl-nodeslo {{.Version}}\n")
	root.AddCommand(newVersionCommand(streams))
}

func newVersionCommand(streams IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version [-o FORMAT]",
		Short: "Print the version of the plugin",
		Long: "version prints the plugin's release version, the git commit and the Go version it was " +
			"built with. -o json or -o yaml print the same fields as kubectl version's clientVersion " +
			"(gitVersion, gitCommit, goVersion, compiler, platform), which -o jsonpath and -o custom-columns read.",
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			format, err := parseOutput(output, versionForms)
			if err != nil {
				return err
			}
			if format.text() {
				_, err := fmt.Fprintln(streams.Out, "kubectl-nodeslo "+version.String())
				return err
			}
			return format.print(streams.Out, printable{value: version.Get()})
		},
	}
	addOutputFlag(cmd, &output, versionForms)
	return cmd
}
