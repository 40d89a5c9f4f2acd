package manager

import (
	"crypto/tls"
	"flag"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"

	"github.com/nodeslo/nodeslo-controller/internal/controller"
)

// Options are the manager's settings; cmd/ binds them to flags.
type Options struct {
	MetricsBindAddress string
	SecureMetrics      bool
	// MetricsCert is the metrics server's certificate, when one is given
	// (a cert-manager Secret, mounted): without it the server makes itself
	// a self-signed one at start, which no scraper can verify.
	MetricsCert            MetricsCertOptions
	EnableHTTP2            bool
	HealthProbeBindAddress string
	LeaderElection         bool
	LeaderElectionID       string
	// LeaderElectionNamespace defaults to the namespace the pod runs in.
	LeaderElectionNamespace string
	// LeaderElectionTimings are the Lease's duration, renew deadline and
	// retry period (leader_election.go says why the defaults).
	LeaderElectionTimings LeaderElectionTimings

	// PprofBindAddress serves net/http/pprof, off by default: profiles tell
	// a lot about the process, so it is for local diagnosis (make bench
	// forces garbage collections through it to read the live heap).
	PprofBindAddress string

	// KubeAPIQPS and KubeAPIBurst limit the manager's requests to the
	// apiserver (reads come from the cache; these are mostly NodeSLO writes
	// and Events).
	//
	// The defaults, 100 and 200, are sized for a 5,000-node cluster: a
	// configuration change can rewrite every NodeSLO, which at 100 writes a
	// second takes under a minute (controller-runtime's own default of 20
	// would take over four), while staying a small share of what an
	// apiserver of that size serves (its default limit is 200 mutating
	// requests in flight, and priority and fairness queues bursts further).
	// The burst absorbs the start-up list calls and the Events that come with
	// a configuration change without delaying the first writes.
	KubeAPIQPS   float64
	KubeAPIBurst int

	// RequestTimeout bounds each request of the manager's client, its
	// writes and its reads past the cache (default 30 s): a connection
	// that hangs holds a worker that long at most, not as long as TCP
	// keeps it open. The cache's lists and watches are not bounded by it.
	// Not a flag: the tests shorten it.
	RequestTimeout time.Duration

	// WatchListClient has the caches start from a stream of watch events
	// (client-go's WatchListClient) rather than a list; off by default,
	// since listing costs the apiserver and the manager less here
	// (internal/watchlist). It is set for the whole process.
	WatchListClient bool

	// Controllers are the settings of the controllers.
	Controllers controller.Options

	// Webhook are the settings of the admission webhook server.
	Webhook WebhookOptions

	// SkipControllerNameValidation lets one process build several managers
	// (the tests restart it); controller names must otherwise be unique per
	// process. Not a flag.
	SkipControllerNameValidation bool

	// LocalClock is this replica's own clock, which the apiserver's is
	// estimated against for the rollout's times (server_clock.go; nil:
	// the real one). Not a flag: a test gives one replica a clock that is
	// ahead. Controllers.Clock, when a test sets it, is read as it is.
	LocalClock clock.WithDelayedExecution

	// Logger is the manager's logger (zero: controller-runtime's global
	// one). Not a flag: tests read what the manager logs.
	Logger logr.Logger
}

// DefaultOptions returns the settings used when no flag is given.
func DefaultOptions() Options {
	return Options{
		MetricsBindAddress:     "0",
		SecureMetrics:          true,
		HealthProbeBindAddress: ":8081",
		PprofBindAddress:       "0",
		LeaderElectionID:       "nodeslo-controller.slo.koordinator.sh",
		LeaderElectionTimings:  defaultLeaderElectionTimings(),
		KubeAPIQPS:             100,
		KubeAPIBurst:           200,
		RequestTimeout:         30 * time.Second,
		Controllers:            controller.DefaultOptions(),
		Webhook:                defaultWebhookOptions(),
		MetricsCert:            defaultMetricsCertOptions(),
	}
}

// BindFlags registers one flag per option on fs.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress,
		"Address of the metrics endpoint: :8443 for HTTPS, :8080 for HTTP, 0 to disable it.")
	fs.BoolVar(&o.SecureMetrics, "metrics-secure", o.SecureMetrics,
		"Serve metrics over HTTPS, to clients authorised by the apiserver (TokenReview and SubjectAccessReview).")
	o.MetricsCert.bindFlags(fs)
	fs.BoolVar(&o.EnableHTTP2, "enable-http2", o.EnableHTTP2,
		"Allow HTTP/2 on the metrics server (off by default because of the HTTP/2 rapid-reset CVEs).")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress,
		"Address of the /healthz and /readyz endpoints.")
	fs.StringVar(&o.PprofBindAddress, "pprof-bind-address", o.PprofBindAddress,
		"Address of the pprof endpoint (/debug/pprof), e.g. 127.0.0.1:6060; 0 to disable it. For diagnosis only.")
	fs.BoolVar(&o.LeaderElection, "leader-elect", o.LeaderElection,
		"Elect a leader so that only one replica writes NodeSLOs.")
	fs.StringVar(&o.LeaderElectionID, "leader-election-id", o.LeaderElectionID,
		"Name of the Lease used for leader election.")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", o.LeaderElectionNamespace,
		"Namespace of the leader-election Lease (default: the pod's namespace).")
	o.LeaderElectionTimings.bindFlags(fs)
	fs.Float64Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS,
		"Requests per second the manager may send to the apiserver.")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst,
		"Requests the manager may send to the apiserver in a burst above --kube-api-qps.")
	fs.BoolVar(&o.WatchListClient, "watch-list-client", o.WatchListClient,
		"Start the caches from a stream of watch events (client-go's WatchListClient) instead of a list; "+
			"overrides KUBE_FEATURE_WatchListClient.")
	o.Controllers.BindFlags(fs)
	o.Webhook.bindFlags(fs)
}

// tlsOptions turns HTTP/2 off unless it was asked for.
func (o *Options) tlsOptions() []func(*tls.Config) {
	if o.EnableHTTP2 {
		return nil
	}
	return []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }}
}
