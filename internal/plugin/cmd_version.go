package plugin

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

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

// The formats of version -o, beside the default one-line form.
const (
	versionJSON = "json"
	versionYAML = "yaml"
)

func newVersionCommand(streams IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version [-o json|yaml]",
		Short: "Print the version of the plugin",
		Long: "version prints the plugin's release version, the git commit and the Go version it was " +
			"built with. -o json or -o yaml print the same fields as kubectl version's clientVersion " +
			"(gitVersion, gitCommit, goVersion, compiler, platform).",
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return printVersion(streams, output)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: json or yaml (default: one line)")
	return cmd
}

func printVersion(streams IOStreams, output string) error {
	info := version.Get()
	switch output {
	case "":
		_, err := fmt.Fprintln(streams.Out, "kubectl-nodeslo "+version.String())
		return err
	case versionJSON:
		data, err := json.MarshalIndent(info, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(streams.Out, string(data))
		return err
	case versionYAML:
		data, err := yaml.Marshal(info)
		if err != nil {
			return err
		}
		_, err = streams.Out.Write(data)
		return err
	default:
		return fmt.Errorf("unknown output format %q: use json or yaml", output)
	}
}
