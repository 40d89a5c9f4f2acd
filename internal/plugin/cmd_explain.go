package plugin

import (
	"errors"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// newExplainCommand is `kubectl nodeslo explain NODE...|-l SELECTOR`: live
// against the cluster of the usual kubeconfig flags, it tells why a node's
// NodeSLO says what it says.
func newExplainCommand(streams IOStreams, kube *kubeFlags) *cobra.Command {
	var ref ConfigMapRef
	var selector, output string
	cmd := &cobra.Command{
		Use: "explain (NODE... | -l SELECTOR) [-o FORMAT]",
		Short: "Explain, for nodes, which strategies apply, which ConfigMap keys are valid " +
			"and whether their NodeSLOs are up to date",
		Long: `Reads the Node, the slo-controller-config ConfigMap and the node's NodeSLO from
the cluster and prints, for each ConfigMap key, whether it is valid (with its
errors and warnings) and which node strategy, or the cluster strategy, applies
to this node; then whether the stored NodeSLO matches what the configuration
resolves to now, and if not, which sections differ; and, by a server-side dry
run (needs permission to create NodeSLOs), the configured values the installed
NodeSLO CRD drops, which the node's NodeSLO cannot carry.
Several nodes may be named, and -l/--selector adds the nodes whose labels
match (as kubectl's); each is explained once, by name, the explanations
separated by a line "---". -o json|yaml prints them as a list, and every
other -o of kubectl reads that list: -o name names the nodes, -o
custom-columns has a row per node (docs/kubectl-nodeslo.md#machine-readable-output).`,
		Example: `  kubectl nodeslo explain worker-1
  kubectl nodeslo explain -l pool=batch -o json
  kubectl nodeslo explain worker-1 --context prod -n koordinator-system`,
		ValidArgsFunction: completeNodeNames(kube),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := parseOutput(output, objectForms)
			if err != nil {
				return err
			}
			sel, err := parseSelector(selector)
			if err != nil {
				return err
			}
			if len(args) == 0 && sel == nil {
				return errors.New("name a node, or select nodes with -l/--selector: kubectl nodeslo explain NODE")
			}
			c, err := kube.client()
			if err != nil {
				return err
			}
			configMap := client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}
			all, err := FetchExplainInputsOf(cmd.Context(), c, args, sel, configMap)
			if err != nil {
				return err
			}
			list := ExplanationList{Items: []ExplanationOutput{}}
			for i, in := range all {
				e := Explain(in)
				e.CheckAgainstCRD(cmd.Context(), c)
				if !format.text() {
					list.Items = append(list.Items, e.Output())
					continue
				}
				if i > 0 {
					printLine(streams.Out, "---")
				}
				if err := e.Write(streams.Out); err != nil {
					return err
				}
			}
			if !format.text() {
				return format.print(streams.Out, list.printable())
			}
			return nil
		},
	}
	addConfigMapRefFlags(cmd.Flags(), &ref)
	addSelectorFlag(cmd.Flags(), &selector)
	addOutputFlag(cmd, &output, objectForms)
	return cmd
}
