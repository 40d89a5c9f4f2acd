// Command cert-manager runs cert-manager's controller or its CA injector,
// from the library packages of github.com/cert-manager/cert-manager at the
// version go.mod pins, against the local cluster of test/nodecluster.
//
// cert-manager's own commands live in nested modules (cmd/controller,
// cmd/cainjector) that the Go module proxy does not serve, so this is the
// entry point instead: it wires the controllers that a self-signed Issuer,
// a CA Issuer and their Certificates need, and the injector of CA bundles
// into webhook configurations, with settings chosen for a one-node test
// cluster (no leader election, no ACME, no metrics server).
//
// Usage:
//
//	cert-manager controller -kubeconfig FILE [-cluster-resource-namespace NS]
//	cert-manager cainjector -kubeconfig FILE
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	healthzpkg "sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	logf "github.com/cert-manager/cert-manager/pkg/logs"

	controllerpkg "github.com/cert-manager/cert-manager/pkg/controller"
	"github.com/cert-manager/cert-manager/pkg/controller/cainjector"
	"github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	crca "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/ca"
	crselfsigned "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/selfsigned"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	"github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	"github.com/cert-manager/cert-manager/pkg/controller/issuers"

	// The Issuer kinds the issuers controller can make Ready.
	_ "github.com/cert-manager/cert-manager/pkg/issuer/ca"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/selfsigned"
)

// controllers are the control loops a Certificate from a self-signed or CA
// Issuer goes through: the Issuer's readiness, the Certificate's trigger,
// private key, request, approval, signing, issuing into the Secret,
// readiness and old requests' clean-up.
var controllers = []string{
	issuers.ControllerName,
	clusterissuers.ControllerName,
	trigger.ControllerName,
	keymanager.ControllerName,
	requestmanager.ControllerName,
	approver.ControllerName,
	crselfsigned.CRControllerName,
	crca.CRControllerName,
	issuing.ControllerName,
	readiness.ControllerName,
	revisionmanager.ControllerName,
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: cert-manager controller|cainjector -kubeconfig FILE")
		os.Exit(2)
	}
	mode := os.Args[1]
	flags := flag.NewFlagSet(mode, flag.ExitOnError)
	kubeconfig := flags.String("kubeconfig", "", "the kubeconfig of the cluster")
	resourceNamespace := flags.String("cluster-resource-namespace", "cert-manager",
		"where a ClusterIssuer's Secrets are")
	healthz := flags.String("healthz-address", "",
		"where /healthz answers 200 once the controllers run (empty: nowhere)")
	verbosity := flags.Int("v", 1, "log verbosity")
	_ = flags.Parse(os.Args[2:])

	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(*verbosity)))
	klog.SetLogger(logger)
	ctrl.SetLogger(logger)
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	ctx = logf.NewContext(ctx, logger, mode)

	var err error
	switch mode {
	case "controller":
		err = runController(ctx, *kubeconfig, *resourceNamespace, *healthz)
	case "cainjector":
		err = runCAInjector(ctx, *kubeconfig, *healthz)
	default:
		err = fmt.Errorf("unknown mode %q (controller or cainjector)", mode)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cert-manager %s: %v\n", mode, err)
		os.Exit(1)
	}
}

// runController builds every control loop of controllers on one context
// factory, starts the shared informers they registered, and runs them until
// ctx ends.
func runController(ctx context.Context, kubeconfig, resourceNamespace, healthz string) error {
	factory, err := controllerpkg.NewContextFactory(ctx, controllerpkg.ContextOptions{
		Kubeconfig:         kubeconfig,
		KubernetesAPIQPS:   50,
		KubernetesAPIBurst: 100,
		IssuerOptions:      controllerpkg.IssuerOptions{ClusterResourceNamespace: resourceNamespace},
		CertificateOptions: controllerpkg.CertificateOptions{
			CertificateRequestMinimumBackoffDuration: time.Minute,
			CertificateRequestMaximumBackoffDuration: 10 * time.Minute,
		},
		SchedulerOptions: controllerpkg.SchedulerOptions{MaxConcurrentChallenges: 1},
	})
	if err != nil {
		return err
	}
	known := controllerpkg.Known()
	loops := make(map[string]controllerpkg.Interface, len(controllers))
	for _, name := range controllers {
		constructor, ok := known[name]
		if !ok {
			return fmt.Errorf("cert-manager has no controller %q", name)
		}
		if loops[name], err = constructor(factory); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	// The informers exist once the controllers have asked for them.
	shared, err := factory.Build()
	if err != nil {
		return err
	}
	shared.KubeSharedInformerFactory.Start(ctx.Done())
	shared.SharedInformerFactory.Start(ctx.Done())
	shared.HTTP01ResourceMetadataInformersFactory.Start(ctx.Done())

	var wg sync.WaitGroup
	errs := make(chan error, len(loops))
	for name, loop := range loops {
		wg.Go(func() {
			if err := loop.Run(2, ctx); err != nil {
				errs <- fmt.Errorf("%s: %w", name, err)
			}
		})
	}
	logf.FromContext(ctx).Info("controllers started", "controllers", controllers)
	if healthz != "" {
		// Healthy once the informers the controllers wait for have synced.
		synced := func() bool {
			for _, done := range shared.KubeSharedInformerFactory.WaitForCacheSync(ctx.Done()) {
				if !done {
					return false
				}
			}
			for _, done := range shared.SharedInformerFactory.WaitForCacheSync(ctx.Done()) {
				if !done {
					return false
				}
			}
			return true
		}
		wg.Go(func() { serveHealthz(ctx, healthz, synced) })
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

// runCAInjector runs the injector of CA bundles into
// ValidatingWebhookConfigurations and MutatingWebhookConfigurations, from a
// Certificate's Secret (cert-manager.io/inject-ca-from) or a Secret
// (cert-manager.io/inject-ca-from-secret).
func runCAInjector(ctx context.Context, kubeconfig, healthz string) error {
	restConfig, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	restConfig.UserAgent = "cert-manager-cainjector"
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, cmapi.AddToScheme, apiextensionsv1.AddToScheme, admissionregistrationv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: healthzOrOff(healthz),
		// Secrets are read from the apiserver, not cached: the watches on
		// them are metadata only.
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
	})
	if err != nil {
		return err
	}
	if err := cainjector.RegisterAllInjectors(ctx, mgr, cainjector.SetupOptions{
		EnableCertificatesDataSource: true,
		EnabledReconcilersFor: map[string]bool{
			cainjector.ValidatingWebhookConfigurationName: true,
			cainjector.MutatingWebhookConfigurationName:   true,
		},
	}); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("ping", healthzpkg.Ping); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

func healthzOrOff(address string) string {
	if address == "" {
		return "0"
	}
	return address
}

// serveHealthz answers /healthz on address until ctx ends: 200 once synced
// reports true, 503 before.
func serveHealthz(ctx context.Context, address string, synced func() bool) {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if !synced() {
			http.Error(w, "informers not synced", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	server := &http.Server{Addr: address, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = server.Close()
	}()
	if err := server.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logf.FromContext(ctx).Error(err, "healthz server")
	}
}
