package plugin

import (
	"errors"

	"github.com/spf13/cobra"
)

func newValidateCommand(streams IOStreams) *cobra.Command {
	var input configMapFlags
	cmd := &cobra.Command{
		Use:   "validate -f CONFIGMAP.yaml",
		Short: "Check the ConfigMap the way the controller does",
		Long: "validate reads the slo-controller-config ConfigMap from a file and prints one error " +
			"per line on stdout, each naming the key and the JSON path; warnings go to stderr.\n" +
			"The file may hold several objects or a List (kubectl get cm -o yaml): the ConfigMap read is " +
			"the one named by --slo-config-name in --config-namespace (a ConfigMap without a namespace " +
			"matches any); failing that, the only one with that name or the only ConfigMap, with a warning.\n" +
			"Exit status: 0 valid, 1 invalid, 2 the file could not be read.",
		Args: filesByFlag("-f %s"),
		RunE: func(_ *cobra.Command, _ []string) error {
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
			return nil
		},
	}
	input.addFlags(cmd.Flags())
	return cmd
}
