package plugin

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

func newValidateCommand(streams IOStreams, kube *kubeFlags) *cobra.Command {
	var input configMapFlags
	var nodesFile string
	var checkCRD bool
	cmd := &cobra.Command{
		Use:   "validate -f CONFIGMAP.yaml [--nodes NODES.yaml] [--check-crd]",
		Short: "Check the ConfigMap the way the controller does",
		Long: "validate reads the slo-controller-config ConfigMap from a file and prints one error " +
			"per line on stdout, each naming the key and the JSON path; warnings go to stderr.\n" +
			"The file may hold several objects or a List (kubectl get cm -o yaml): the ConfigMap read is " +
			"the one named by --slo-config-name in --config-namespace (a ConfigMap without a namespace " +
			"matches any); failing that, the only one with that name or the only ConfigMap, with a warning.\n" +
			"With --nodes (the nodes as render reads them, e.g. kubectl get nodes -o yaml), it also warns " +
			"about every node strategy whose nodeSelector matches none of those nodes, as the admission " +
			"webhook does with the cluster's.\n" +
			"With --check-crd, a valid ConfigMap is also checked against the live cluster of the kubeconfig: " +
			"one NodeSLO holding every field it sets is created in a server-side dry run (nothing is stored; " +
			"needs permission to create NodeSLOs), and every field the installed NodeSLO CRD would drop is a " +
			"warning. The cluster is chosen as by kubectl (--kubeconfig, --context, --server/-s, ...).\n" +
			"Exit status, like kubectl diff's: 0 valid (warnings or not), 1 invalid, 2 error (a file could " +
			"not be read, or the cluster not asked).",
		Args: filesByFlag("-f %s"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if input.file == "" {
				return errors.New("--filename (-f) is required")
			}
			if input.file == "-" && nodesFile == "-" {
				return errors.New("-f - and --nodes - both read standard input, which holds one stream: give one of them as a file")
			}
			if kube.overrides.ClusterInfo.Server != "" && !checkCRD {
				return fmt.Errorf("--server %s names the API server, as in kubectl, and validate asks no server "+
					"without --check-crd (which is what validate's --server used to mean)",
					clip(kube.overrides.ClusterInfo.Server))
			}
			cm, err := input.read(streams.In, streams.ErrOut)
			if err != nil {
				return err
			}
			var nodes []sloconfig.Node
			if nodesFile != "" {
				if nodes, err = readNodesFile(nodesFile, streams.In, streams.ErrOut); err != nil {
					return err
				}
			}
			valid := Validate(cm.Data, streams.Out, streams.ErrOut)
			if nodesFile != "" {
				printUnmatched(cm.Data, nodes, streams.ErrOut)
			}
			if !valid {
				return exitError{code: ExitInvalid}
			}
			if !checkCRD {
				return nil
			}
			c, err := kube.client()
			if err != nil {
				return err
			}
			return ValidateAgainstCRD(cmd.Context(), c, cm.Data, streams.ErrOut)
		},
	}
	input.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&nodesFile, "nodes", "",
		"warn about node strategies matching none of these nodes: a Node, NodeList or List of Nodes, "+
			"or several YAML documents of them (- for stdin)")
	cmd.Flags().BoolVar(&checkCRD, "check-crd", false,
		"Also check the ConfigMap against the NodeSLO CRD installed in the cluster (a server-side dry run).")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return serverFlagHint(err) })
	return cmd
}

// serverFlagHint adds, to pflag's error for a --server without a value,
// that validate's former --server, the check against the live CRD, is
// --check-crd now: --server is kubectl's API server address.
func serverFlagHint(err error) error {
	if strings.Contains(err.Error(), "flag needs an argument: --server") ||
		strings.Contains(err.Error(), "flag needs an argument: 's' in -s") {
		return fmt.Errorf("%w: --server (-s) is the API server's address, as in kubectl; "+
			"to check the ConfigMap against the cluster's NodeSLO CRD, use --check-crd", err)
	}
	return err
}
