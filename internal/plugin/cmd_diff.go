package plugin

import (
	"errors"

	"github.com/spf13/cobra"
)

// newDiffCommand is `kubectl nodeslo diff -f NEW.yaml`: live against the
// cluster, which NodeSLOs the file would change, before anyone applies it.
func newDiffCommand(streams IOStreams, kube *kubeFlags) *cobra.Command {
	var input configMapFlags
	var selector, output string
	cmd := &cobra.Command{
		Use:   "diff -f CONFIGMAP.yaml [-l SELECTOR] [-o FORMAT]",
		Short: "Show, live against the cluster, which nodes' NodeSLOs a ConfigMap would change, and which fields",
		Long: `Reads the Nodes and NodeSLOs from the cluster, resolves every node against the
ConfigMap of the file as the controller would once the file is applied, and
prints, per node whose NodeSLO would change, the JSON path of each field that
would change (old -> new), then a summary count. Nodes without a NodeSLO are
listed as created. Errors and warnings of the file's keys go to stderr; an
invalid key keeps each node's stored value, as the controller does.
Useful before moving from Koordinator's controller too: the diff of the
ConfigMap in force lists every NodeSLO this controller would rewrite.
-l/--selector compares only the nodes whose labels match; -o json|yaml
prints the result as a structure, which every other -o of kubectl reads:
-o name names the NodeSLOs that would change, -o custom-columns has a row
per node (docs/kubectl-nodeslo.md#machine-readable-output).
Exit status, like kubectl diff: 0 no change, 1 changes, 2 error (unreadable
file, cluster unreachable, or an invalid key in the file).`,
		Example: `  kubectl nodeslo diff -f slo-controller-config.yaml
  kubectl nodeslo diff -f slo-controller-config.yaml -l pool=batch -o json
  kubectl get cm -n koordinator-system slo-controller-config -o yaml | kubectl nodeslo diff -f -`,
		Args: filesByFlag("-f %s"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if input.file == "" {
				return errors.New("--filename (-f) is required")
			}
			format, err := parseOutput(output, objectForms)
			if err != nil {
				return err
			}
			sel, err := parseSelector(selector)
			if err != nil {
				return err
			}
			cm, err := input.read(streams.In, streams.ErrOut)
			if err != nil {
				return err
			}
			c, err := kube.client()
			if err != nil {
				return err
			}
			in, err := FetchDiffInputsOf(cmd.Context(), c, cm.Data, sel)
			if err != nil {
				return err
			}
			result := Diff(in)
			if !format.text() {
				err = format.print(streams.Out, result.Output().printable())
			} else {
				err = result.Write(streams.Out, streams.ErrOut)
			}
			if err != nil {
				return err
			}
			switch {
			case !result.Valid():
				return exitError{code: ExitVerdictError}
			case len(result.Changed) > 0:
				return exitError{code: ExitChanges}
			}
			return nil
		},
	}
	input.addFlags(cmd.Flags())
	addSelectorFlag(cmd.Flags(), &selector)
	addOutputFlag(cmd, &output, objectForms)
	return cmd
}
