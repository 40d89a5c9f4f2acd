package plugin

import (
	"fmt"

	"github.com/spf13/pflag"
)

// The ConfigMap's namespace has two flags: kubectl's -n/--namespace and
// --config-namespace, the controller's own flag name. Either names it;
// both may be given only when they agree. Without either, it is the
// controller's default, koordinator-system, and not the namespace of the
// kubeconfig's context: the configuration lives where the controller reads
// it, and a context set to "default" must not send a rollout undo or pause
// to a ConfigMap nobody reads (docs/kubectl-nodeslo.md#the-configmaps-namespace).
const (
	namespaceFlag       = "namespace"
	configNamespaceFlag = "config-namespace"
)

// resolveNamespace makes -n the value of --config-namespace, which every
// command reads, or refuses the two when they disagree.
func resolveNamespace(flags *pflag.FlagSet) error {
	n, c := flags.Lookup(namespaceFlag), flags.Lookup(configNamespaceFlag)
	if n == nil || c == nil || !n.Changed {
		return nil
	}
	if n.Value.String() == "" {
		return fmt.Errorf("-n/--namespace is empty: name the namespace of the ConfigMap")
	}
	if c.Changed && c.Value.String() != n.Value.String() {
		return fmt.Errorf("-n %s and --config-namespace %s name different namespaces for the ConfigMap: "+
			"give one of them (they mean the same)", n.Value.String(), c.Value.String())
	}
	return flags.Set(configNamespaceFlag, n.Value.String())
}
