package plugin

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// configMapFlags are -f and the flags that say which ConfigMap of the file
// to read; their names and defaults are the controller's.
type configMapFlags struct {
	file string
	ref  ConfigMapRef
}

func (f *configMapFlags) addFlags(flags *pflag.FlagSet) {
	flags.StringVarP(&f.file, "filename", "f", "", "the ConfigMap manifest (YAML or JSON; - for stdin)")
	addConfigMapRefFlags(flags, &f.ref)
}

// addConfigMapRefFlags binds the ConfigMap's namespace and name, defaulting
// to the controller's.
func addConfigMapRefFlags(flags *pflag.FlagSet, ref *ConfigMapRef) {
	flags.StringVar(&ref.Namespace, "config-namespace", sloconfig.DefaultConfigMapNamespace,
		"Namespace of the ConfigMap, as the controller's flag; the same as -n/--namespace.")
	flags.StringVar(&ref.Name, "slo-config-name", sloconfig.DefaultConfigMapName,
		"Name of the ConfigMap, as the controller's flag.")
}

// read reads the ConfigMap and prints the warnings about it.
func (f *configMapFlags) read(stdin io.Reader, errOut io.Writer) (*ConfigMapInput, error) {
	r, done, err := openInput(f.file, stdin)
	if err != nil {
		return nil, err
	}
	defer done()
	cm, err := ReadConfigMap(r, f.ref)
	if err != nil {
		return nil, err
	}
	printInputWarnings(cm, errOut)
	return cm, nil
}

// readNodesFile reads --nodes and prints the warnings about the nodes.
func readNodesFile(path string, stdin io.Reader, errOut io.Writer) ([]sloconfig.Node, error) {
	r, done, err := openInput(path, stdin)
	if err != nil {
		return nil, err
	}
	defer done()
	nodes, warnings, err := ReadNodes(r)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		printLine(errOut, "warning: "+w)
	}
	return nodes, nil
}

// filesByFlag refuses positional arguments, which are most likely a file
// given without its flag.
func filesByFlag(usage string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("%s takes no arguments: give files with flags, e.g. kubectl nodeslo %s %s",
				cmd.Name(), cmd.Name(), fmt.Sprintf(usage, clip(args[0])))
		}
		return nil
	}
}
