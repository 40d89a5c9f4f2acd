package plugin

import (
	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// newExplainCommand is `kubectl nodeslo explain NODE`: live against the
// cluster of the usual kubeconfig flags, it tells why a node's NodeSLO says
// what it says.
func newExplainCommand(streams IOStreams) *cobra.Command {
	kube := newKubeFlags()
	var ref ConfigMapRef
	cmd := &cobra.Command{
		Use: "explain NODE",
		Short: "Explain, for one node, which strategies apply, which ConfigMap keys are valid " +
			"and whether its NodeSLO is up to date",
		Long: `Reads the Node, the slo-controller-config ConfigMap and the node's NodeSLO from
the cluster and prints, for each ConfigMap key, whether it is valid (with its
errors and warnings) and which node strategy, or the cluster strategy, applies
to this node; then whether the stored NodeSLO matches what the configuration
resolves to now, and if not, which sections differ; and, by a server-side dry
run (needs permission to create NodeSLOs), the configured values the installed
NodeSLO CRD drops, which the node's NodeSLO cannot carry.`,
		Example: `  kubectl nodeslo explain worker-1
  kubectl nodeslo explain worker-1 --context prod --config-namespace koordinator-system`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := kube.client()
			if err != nil {
				return err
			}
			configMap := client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}
			in, err := FetchExplainInputs(cmd.Context(), c, args[0], configMap)
			if err != nil {
				return err
			}
			e := Explain(in)
			e.CheckAgainstCRD(cmd.Context(), c)
			return e.Write(streams.Out)
		},
	}
	kube.addFlags(cmd.Flags())
	addConfigMapRefFlags(cmd.Flags(), &ref)
	return cmd
}
