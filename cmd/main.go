// Command manager runs the nodeslo-controller: it keeps one NodeSLO per Node,
// filled from the slo-controller-config ConfigMap.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"runtime/debug"

	"github.com/go-logr/logr"
	// Client auth plugins (OIDC, exec, ...) for running outside a cluster.
	_ "k8s.io/client-go/plugin/pkg/client/auth"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/nodeslo/nodeslo-controller/internal/manager"
	"github.com/nodeslo/nodeslo-controller/internal/version"
)

func main() {
	opts := manager.DefaultOptions()
	zapOpts := zap.Options{}
	printVersion := bindFlags(flag.CommandLine, &opts, &zapOpts)
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
	setSoftMemoryLimit(log)

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

// setSoftMemoryLimit has the Go runtime collect garbage before the
// container's memory limit is reached (manager.SoftMemoryLimit), and logs
// the limit in force; a malformed limit stops the manager.
func setSoftMemoryLimit(log logr.Logger) {
	limit, ok, err := manager.SoftMemoryLimit(os.Getenv)
	if err != nil {
		log.Error(err, "Cannot set the soft memory limit")
		os.Exit(1)
	}
	source := "GOMEMLIMIT"
	if ok {
		debug.SetMemoryLimit(limit)
		source = manager.ContainerMemoryLimitEnv
	}
	// A negative value only reads the limit; math.MaxInt64 means none.
	if inForce := debug.SetMemoryLimit(-1); inForce != math.MaxInt64 {
		log.Info("Soft memory limit", "bytes", inForce, "from", source)
	}
}

// bindFlags registers the manager's own flags, the logging flags and
// --version on fs (controller-runtime registers --kubeconfig on the command
// line itself), and returns where --version lands. The flag table in
// docs/deploy.md lists them all; flags_test.go keeps the two equal.
func bindFlags(fs *flag.FlagSet, opts *manager.Options, zapOpts *zap.Options) (printVersion *bool) {
	opts.BindFlags(fs)
	zapOpts.BindFlags(fs)
	return fs.Bool("version", false, "Print the version of the manager and exit.")
}
