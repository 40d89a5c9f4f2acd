// Package manager assembles the controller-runtime manager that runs the
// controllers, so that cmd/ and the tests build it the same way.
package manager

import (
	"fmt"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/internal/version"
	"github.com/nodeslo/nodeslo-controller/internal/watchlist"
)

// New builds the manager with metrics, health probes, leader election, a
// cache restricted to what the controllers read, and the controllers, all
// set from opts. cmd/ and the tests both run what it returns.
func New(cfg *rest.Config, opts Options) (ctrl.Manager, error) {
	if err := opts.LeaderElectionTimings.validate(); err != nil {
		return nil, fmt.Errorf("leader election: %w", err)
	}
	watchlist.Set(opts.WatchListClient)
	cfg = rest.CopyConfig(cfg)
	cfg.QPS = float32(opts.KubeAPIQPS)
	cfg.Burst = opts.KubeAPIBurst
	// One log line per distinct apiserver warning, not one per NodeSLO: an
	// old CRD warns of the same unknown field on every write, and the
	// controller reports that itself (docs/behaviour.md#crd-version-skew).
	cfg.WarningHandlerWithContext = crlog.NewKubeAPIWarningLogger(crlog.KubeAPIWarningLoggerOptions{Deduplicate: true})
	if opts.LeaderElection {
		// Only the replica that holds the Lease writes (lease_fence.go).
		cfg.Wrap(newLeaseFence(opts.LeaderElectionNamespace, opts.LeaderElectionID, opts.LeaderElectionTimings).wrap)
	}
	if opts.Controllers.Clock == nil {
		// The rollout's times follow the apiserver's clock, read from its
		// answers, so that replicas whose clocks differ agree on them
		// (server_clock.go).
		log := opts.Logger
		if log.GetSink() == nil {
			log = crlog.Log
		}
		serverTime := newServerClock(opts.LocalClock, log.WithName("clock"))
		cfg.Wrap(serverTime.wrap)
		opts.Controllers.Clock = serverTime
	}

	metrics := metricsserver.Options{
		BindAddress:   opts.MetricsBindAddress,
		SecureServing: opts.SecureMetrics,
		TLSOpts:       opts.tlsOptions(),
	}
	var metricsCert *certwatcher.CertWatcher
	if opts.MetricsBindAddress != "0" {
		var err error
		if metricsCert, err = opts.MetricsCert.watcher(opts.SecureMetrics); err != nil {
			return nil, err
		}
	}
	if metricsCert != nil {
		metrics.TLSOpts = append(metrics.TLSOpts, tlsOption(metricsCert))
	}
	if opts.SecureMetrics {
		metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        scheme.New(),
		Metrics:                       metrics,
		HealthProbeBindAddress:        opts.HealthProbeBindAddress,
		PprofBindAddress:              opts.PprofBindAddress,
		LeaderElection:                opts.LeaderElection,
		LeaderElectionID:              opts.LeaderElectionID,
		LeaderElectionNamespace:       opts.LeaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &opts.LeaderElectionTimings.LeaseDuration,
		RenewDeadline:                 &opts.LeaderElectionTimings.RenewDeadline,
		RetryPeriod:                   &opts.LeaderElectionTimings.RetryPeriod,
		Cache:                         cacheOptions(opts.Controllers),
		NewCache:                      newCache,
		NewClient:                     newTimedClient(opts.RequestTimeout),
		Logger:                        opts.Logger,
		Controller:                    config.Controller{SkipNameValidation: &opts.SkipControllerNameValidation},
		WebhookServer:                 opts.Webhook.server(opts.tlsOptions()),
	})
	if err != nil {
		return nil, fmt.Errorf("creating manager: %w", err)
	}
	if metricsCert != nil {
		// The watcher reloads the files on every replica, leader or not:
		// each serves metrics (CertWatcher needs no leader election).
		if err := mgr.Add(metricsCert); err != nil {
			return nil, fmt.Errorf("adding the metrics certificate watcher: %w", err)
		}
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return nil, fmt.Errorf("adding health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return nil, fmt.Errorf("adding ready check: %w", err)
	}
	// /metrics tells which build runs, beside the controllers' own series.
	if err := version.RegisterBuildInfo(crmetrics.Registry); err != nil {
		return nil, fmt.Errorf("registering %s: %w", version.MetricBuildInfo, err)
	}
	if err := setupControllers(mgr, opts); err != nil {
		return nil, err
	}
	if err := setupWebhook(mgr, opts); err != nil {
		return nil, err
	}
	return mgr, nil
}
