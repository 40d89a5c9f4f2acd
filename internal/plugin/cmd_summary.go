package plugin

import (
	"context"

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spf13/cobra"
)

// newSummaryCommand is `kubectl nodeslo summary [-l SELECTOR] [-o FORMAT]`.
func newSummaryCommand(streams IOStreams, kube *kubeFlags) *cobra.Command {
	var ref ConfigMapRef
	var selector, output string
	cmd := &cobra.Command{
		Use:   "summary [-l SELECTOR] [-o FORMAT]",
		Short: "Summarize the fleet: the strategy each node pool gets per key, valid keys, nodes up to date, pending or held",
		Long: `Reads the ConfigMap, its NodeSLORollout (the rollout's status), the Nodes
(metadata only) and the NodeSLOs, resolves every node against the
ConfigMap's data as the controller does, and prints: where the rollout
of that data stands; per key, whether it is valid and how many nodes each
strategy (the cluster strategy, a node strategy, the built-in defaults, or
the value kept while the key is invalid) applies to; and how many nodes
store what the data resolves to (up to date), how many the controller has
still to write (pending), and how many a paused, halted or invalid rollout
holds (held).
-l/--selector counts only the nodes whose labels match; -o json|yaml
prints the summary as a structure, which every other -o of kubectl reads;
-o wide adds a column counting each key's warnings (docs/kubectl-nodeslo.md#summary).`,
		Example: `  kubectl nodeslo summary
  kubectl nodeslo summary -l pool=batch -o yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := parseOutput(output, objectForms)
			if err != nil {
				return err
			}
			sel, err := parseSelector(selector)
			if err != nil {
				return err
			}
			c, err := kube.client()
			if err != nil {
				return err
			}
			in, err := FetchSummaryInputs(cmd.Context(), c, ref, sel)
			if err != nil {
				return err
			}
			s := Summarize(in)
			switch {
			case format.wide():
				return s.WriteWide(streams.Out)
			case format.text():
				return s.Write(streams.Out)
			}
			return format.print(streams.Out, s.printable(ref.Name))
		},
	}
	addConfigMapRefFlags(cmd.Flags(), &ref)
	addSelectorFlag(cmd.Flags(), &selector)
	addOutputFlag(cmd, &output, objectForms)
	return cmd
}

// FetchSummaryInputs reads the rollout status (the ConfigMap and its
// NodeSLORollout), then the nodes selector matches (nil: all) and the NodeSLOs.
func FetchSummaryInputs(
	ctx context.Context, c client.Reader, ref ConfigMapRef, selector labels.Selector,
) (SummaryInputs, error) {
	key := client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}
	status, err := FetchRolloutStatus(ctx, c, key)
	if err != nil {
		return SummaryInputs{}, err
	}
	in := SummaryInputs{Status: status, Data: status.Data}
	nodes, err := FetchDiffInputsOf(ctx, c, nil, selector)
	if err != nil {
		return SummaryInputs{}, err
	}
	in.Nodes, in.Stored = nodes.Nodes, nodes.Stored
	return in, nil
}
