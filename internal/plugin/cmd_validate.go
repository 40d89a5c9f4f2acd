package plugin

import (
	"errors"

	"github.com/spf13/cobra"
)

func newValidateCommand(streams IOStreams) *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "validate -f CONFIGMAP.yaml",
		Short: "Check the ConfigMap the way the controller does",
		Long: "validate reads the slo-controller-config ConfigMap from a file and prints one error " +
			"per line on stdout, each naming the key and the JSON path; warnings go to stderr.\n" +
			"Exit status: 0 valid, 1 invalid, 2 the file could not be read.",
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			if file == "" {
				return errors.New("--filename (-f) is required")
			}
			data, err := readFile(file, streams.In, ReadConfigMapData)
			if err != nil {
				return err
			}
			if !Validate(data, streams.Out, streams.ErrOut) {
				return exitError{code: ExitInvalid}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "filename", "f", "", "the ConfigMap manifest (YAML or JSON; - for stdin)")
	return cmd
}
