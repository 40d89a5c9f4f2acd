// Command manager runs the nodeslo-controller: it keeps one NodeSLO per Node,
// filled from the slo-controller-config ConfigMap.
package main

import (
	"flag"
	"fmt"
	"os"

	// Client auth plugins (OIDC, exec, ...) for running outside a cluster.
	_ "k8s.io/client-go/plugin/pkg/client/auth"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/nodeslo/nodeslo-controller/internal/manager"
	"github.com/nodeslo/nodeslo-controller/internal/version"
)

func main() {
	opts := manager.DefaultOptions()
	opts.BindFlags(flag.CommandLine)
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	printVersion := flag.Bool("version", false, "Print the version of the manager and exit.")
	flag.Parse()
	if *printVersion {
		fmt.Println("nodeslo-controller " + version.String())
		return
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	log := ctrl.Log.WithName("setup")
	// The first line of every start says which build runs.
	info := version.Get()
	log.Info("nodeslo-controller", "version", info.GitVersion, "revision", info.GitCommit,
		"goVersion", info.GoVersion, "platform", info.Platform)

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
