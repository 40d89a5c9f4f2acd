package plugin

import (
	"errors"

	"github.com/spf13/cobra"
)

func newValidateCommand(streams IOStreams) *cobra.Command {
	var input configMapFlags
	var server bool
	kube := newKubeFlags()
	cmd := &cobra.Command{
		Use:   "validate -f CONFIGMAP.yaml [--server]",
		Short: "Check the ConfigMap the way the controller does",
		Long: "validate reads the slo-controller-config ConfigMap from a file and prints one error " +
			"per line on stdout, each naming the key and the JSON path; warnings go to stderr.\n" +
			"The file may hold several objects or a List (kubectl get cm -o yaml): the ConfigMap read is " +
			"the one named by --slo-config-name in --config-namespace (a ConfigMap without a namespace " +
			"matches any); failing that, the only one with that name or the only ConfigMap, with a warning.\n" +
			"With --server, a valid ConfigMap is also checked against the live cluster of the kubeconfig: " +
			"one NodeSLO holding every field it sets is created in a server-side dry run (nothing is stored; " +
			"needs permission to create NodeSLOs), and every field the installed NodeSLO CRD would drop is a " +
			"warning. Choose the cluster with --kubeconfig, --context or --cluster (kubectl's --server " +
			"is not available here).\n" +
			"Exit status: 0 valid, 1 invalid, 2 the file could not be read or the cluster not asked.",
		Args: filesByFlag("-f %s"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if input.file == "" {
				return errors.New("--filename (-f) is required")
			}
			cm, err := input.read(streams.In, streams.ErrOut)
			if err != nil {
				return err
			}
			if !Validate(cm.Data, streams.Out, streams.ErrOut) {
				return exitError{code: ExitInvalid}
			}
			if !server {
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
	cmd.Flags().BoolVar(&server, "server", false,
		"Also check the ConfigMap against the NodeSLO CRD installed in the cluster (a server-side dry run).")
	kube.addFlagsWithoutAPIServer(cmd.Flags())
	return cmd
}
