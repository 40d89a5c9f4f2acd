package plugin

import (
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// kubeFlags are kubectl's connection flags (--kubeconfig, --context,
// --cluster, --user, --server, --token, --namespace, ...), bound with
// client-go's clientcmd, the code kubectl's own flags are built on. The
// plugin takes them from clientcmd rather than k8s.io/cli-runtime, whose
// flag package would pull kustomize and kubectl's printers into the build.
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

func (f *kubeFlags) addFlags(flags *pflag.FlagSet) {
	flags.StringVar(&f.loading.ExplicitPath, clientcmd.RecommendedConfigPathFlag, "",
		"Path to the kubeconfig file to use.")
	clientcmd.BindOverrideFlags(f.overrides, flags, clientcmd.RecommendedConfigOverrideFlags(""))
}

// restConfig resolves the flags, $KUBECONFIG and ~/.kube/config as kubectl does.
func (f *kubeFlags) restConfig() (*rest.Config, error) {
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(f.loading, f.overrides).ClientConfig()
}
