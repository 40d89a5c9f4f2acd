package manager

import (
	"crypto/tls"
	"flag"
)

// Options are the manager's settings; cmd/ binds them to flags.
type Options struct {
	MetricsBindAddress     string
	SecureMetrics          bool
	EnableHTTP2            bool
	HealthProbeBindAddress string
	LeaderElection         bool
	LeaderElectionID       string
	// LeaderElectionNamespace defaults to the namespace the pod runs in.
	LeaderElectionNamespace string
}

// DefaultOptions returns the settings used when no flag is given.
func DefaultOptions() Options {
	return Options{
		MetricsBindAddress:     "0",
		SecureMetrics:          true,
		HealthProbeBindAddress: ":8081",
		LeaderElectionID:       "nodeslo-controller.slo.koordinator.sh",
	}
}

// BindFlags registers one flag per option on fs.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress,
		"Address of the metrics endpoint: :8443 for HTTPS, :8080 for HTTP, 0 to disable it.")
	fs.BoolVar(&o.SecureMetrics, "metrics-secure", o.SecureMetrics,
		"Serve metrics over HTTPS, to clients authorised by the apiserver (TokenReview and SubjectAccessReview).")
	fs.BoolVar(&o.EnableHTTP2, "enable-http2", o.EnableHTTP2,
		"Allow HTTP/2 on the metrics server (off by default because of the HTTP/2 rapid-reset CVEs).")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress,
		"Address of the /healthz and /readyz endpoints.")
	fs.BoolVar(&o.LeaderElection, "leader-elect", o.LeaderElection,
		"Elect a leader so that only one replica writes NodeSLOs.")
	fs.StringVar(&o.LeaderElectionID, "leader-election-id", o.LeaderElectionID,
		"Name of the Lease used for leader election.")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", o.LeaderElectionNamespace,
		"Namespace of the leader-election Lease (default: the pod's namespace).")
}

// tlsOptions turns HTTP/2 off unless it was asked for.
func (o *Options) tlsOptions() []func(*tls.Config) {
	if o.EnableHTTP2 {
		return nil
	}
	return []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }}
}
