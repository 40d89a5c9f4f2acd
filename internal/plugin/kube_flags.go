package plugin

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
)

// kubeFlags are kubectl's connection flags (--kubeconfig, --context,
// --cluster, --user, --server, --token, --namespace, ...), bound with
// client-go's clientcmd, the code kubectl's own flags are built on. The
// plugin takes them from clientcmd rather than k8s.io/cli-runtime, whose
// flag package would pull kustomize and kubectl's printers into the build.
// One kubeFlags is bound as persistent flags of the root command and shared
// by every subcommand, so that, as in kubectl, they may stand anywhere on
// the line: `kubectl nodeslo --context prod rollout status` and
// `kubectl nodeslo rollout status --context prod` are the same command, and
// a flag given twice, before and after the subcommand, takes its last value.
type kubeFlags struct {
	loading   *clientcmd.ClientConfigLoadingRules
	overrides *clientcmd.ConfigOverrides
}

func newKubeFlags() *kubeFlags {
	return &kubeFlags{
		loading:   clientcmd.NewDefaultClientConfigLoadingRules(),
		overrides: &clientcmd.ConfigOverrides{},
	}
}

// addFlags binds the flags on flags: the root's persistent flags.
func (f *kubeFlags) addFlags(flags *pflag.FlagSet) {
	flags.StringVar(&f.loading.ExplicitPath, clientcmd.RecommendedConfigPathFlag, "",
		"Path to the kubeconfig file to use.")
	names := clientcmd.RecommendedConfigOverrideFlags("")
	// kubectl's -s for --server, which clientcmd leaves to its callers.
	names.ClusterOverrideFlags.APIServer.ShortName = "s"
	clientcmd.BindOverrideFlags(f.overrides, flags, names)
	// -n names the ConfigMap's namespace (config_namespace.go), not the
	// kubeconfig context's, which the plugin never reads.
	flags.Lookup(namespaceFlag).Usage = "Namespace of the ConfigMap (slo-controller-config); the same as " +
		"--config-namespace. Default: koordinator-system, whatever the kubeconfig context's namespace."
}

// restConfig resolves the flags, $KUBECONFIG and ~/.kube/config as kubectl does.
func (f *kubeFlags) restConfig() (*rest.Config, error) {
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(f.loading, f.overrides).ClientConfig()
}

// client connects to the cluster the flags name, with the project's scheme.
func (f *kubeFlags) client() (client.Client, error) { return f.watchClient() }

// watchClient is client, able to watch too.
func (f *kubeFlags) watchClient() (client.WithWatch, error) {
	cfg, err := f.restConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, fmt.Errorf("creating a client: %w", err)
	}
	return c, nil
}
