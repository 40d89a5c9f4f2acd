// Command manager runs the nodeslo-controller: it keeps one NodeSLO per Node,
// filled from the slo-controller-config ConfigMap.
package main

import (
	"flag"
	"os"

	// Client auth plugins (OIDC, exec, ...) for running outside a cluster.
	_ "k8s.io/client-go/plugin/pkg/client/auth"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/nodeslo/nodeslo-controller/internal/manager"
)

func main() {
	opts := manager.DefaultOptions()
	zapOpts := zap.Options{}
	bindFlags(flag.CommandLine, &opts, &zapOpts)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	log := ctrl.Log.WithName("setup")

	mgr, err := manager.New(ctrl.GetConfigOrDie(), opts)
	if err != nil {
		log.Error(err, "Cannot set up the manager")
		os.Exit(1)
	}
	log.Info("Starting manager")
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "Manager stopped with an error")
		os.Exit(1)
	}
}

// bindFlags registers the manager's own flags and the logging flags on fs
// (controller-runtime registers --kubeconfig on the command line itself).
// The flag table in docs/deploy.md lists them all; flags_test.go keeps the
// two equal.
func bindFlags(fs *flag.FlagSet, opts *manager.Options, zapOpts *zap.Options) {
	opts.BindFlags(fs)
	zapOpts.BindFlags(fs)
}
