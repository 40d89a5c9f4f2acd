package plugin

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

func newRenderCommand(streams IOStreams) *cobra.Command {
	var input configMapFlags
	var nodesFile, output string
	var strict bool
	cmd := &cobra.Command{
		Use:   "render [-f CONFIGMAP.yaml] [--nodes NODES.yaml] [-o FORMAT]",
		Short: "Print the NodeSLO each node would get",
		Long: "render prints, as a v1 List, the NodeSLO the controller would create for each node.\n" +
			"Without -f it renders as if the ConfigMap did not exist. Without --nodes it renders one " +
			"node named \"node\" with no labels. Invalid keys render as the controller treats them on " +
			"a fresh start (their defaults), and their errors go to stderr. The ConfigMap is picked " +
			"from the file as by validate.\n" +
			"Exit status: 0 rendered (even with invalid keys, so that the output can be piped; use " +
			"validate, or --strict, to gate on validity), 1 with --strict when a key is invalid, " +
			"2 an input could not be read.\n" +
			"-o json prints the List as JSON; -o name names each NodeSLO; -o jsonpath and -o custom-columns " +
			"(a row per NodeSLO) read the List, which they hold whole in memory.",
		Args: filesByFlag("-f %s"),
		RunE: func(_ *cobra.Command, _ []string) error {
			format, err := parseOutput(output, renderForms)
			if err != nil {
				return err
			}
			if input.file == "-" && nodesFile == "-" {
				return errors.New("-f - and --nodes - both read standard input, which holds one stream: give one of them as a file")
			}
			var data map[string]string
			if input.file != "" {
				cm, err := input.read(streams.In, streams.ErrOut)
				if err != nil {
					return err
				}
				data = cm.Data
			}
			nodes := []sloconfig.Node{DefaultNode}
			if nodesFile != "" {
				var err error
				if nodes, err = readNodesFile(nodesFile, streams.In, streams.ErrOut); err != nil {
					return err
				}
			}
			valid, err := Render(data, nodes, format, streams.Out, streams.ErrOut)
			if err != nil {
				return err
			}
			if strict && !valid {
				return exitError{code: ExitInvalid}
			}
			return nil
		},
	}
	input.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&nodesFile, "nodes", "",
		"a Node, NodeList or List of Nodes, or several YAML documents of them (- for stdin)")
	addOutputFlag(cmd, &output, renderForms)
	// render prints no text: its default is the List as YAML (Render).
	cmd.Flags().Lookup("output").Usage = "Output format. One of: (" + strings.Join(renderForms, ", ") +
		"). Default: yaml."
	cmd.Flags().BoolVar(&strict, "strict", false, "exit with status 1 when a key of the ConfigMap is invalid")
	return cmd
}
