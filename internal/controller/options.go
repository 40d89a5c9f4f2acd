package controller

import (
	"context"
	"flag"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
)

// Options are the controllers' settings; the manager binds them to flags.
type Options struct {
	// ConfigNamespace and ConfigName locate the slo-controller-config ConfigMap.
	// The flag names are Koordinator's, so an existing deployment's arguments
	// keep working.
	ConfigNamespace string
	ConfigName      string

	// MaxConcurrentReconciles is the number of NodeSLO reconciles run at once.
	//
	// The default, 8, is sized for a 5,000-node cluster: a reconcile reads
	// only from the cache and resolves in microseconds, so workers spend their
	// time waiting on a write. After a configuration change every NodeSLO may
	// need an update; with the default client rate (see the manager's
	// --kube-api-qps) and a write round-trip of some tens of milliseconds, about
	// five writes are in flight at any time, so eight workers keep the rate
	// limiter, not the workers, the bottleneck, with headroom for slow writes.
	// More workers would only queue on the rate limiter.
	MaxConcurrentReconciles int

	// MetricGate is what the health gate's metric checks may use.
	MetricGate MetricGateOptions

	// HealthGatePodNamespaces is the comma-separated list of namespaces
	// whose Pods' evictions a health gate counts (docs/rollout.md#evictions);
	// "": none, the default. Whoever may create a Pod in a namespace listed
	// can make its failures halt a gated rollout, so the administrator opts
	// each in, and grants the manager list and watch of Pods there.
	HealthGatePodNamespaces string

	// CRDRecheckInterval is how often, at most, the fields the installed
	// CRD was seen to drop are checked again by one dry run, so that an
	// upgraded CRD is noticed (0: DefaultCRDRecheckInterval). Not a flag:
	// tests shorten it.
	CRDRecheckInterval time.Duration

	// Clock is what the controllers read the time from and what the
	// rollout controller's requeues wait on (nil: the real clock; the
	// manager sets the apiserver's, internal/manager/server_clock.go).
	// Not a flag: tests move a clock past a soak instead of waiting.
	Clock clock.WithDelayedExecution

	// BeforeNodeSLOReconcile, when set, is called at the start of every
	// NodeSLO reconcile with the node's name, and the reconcile waits for
	// it to return. Not a flag: a test holds one node's reconcile to put a
	// rollout decision between that node's change and its write, an order
	// the apiserver and the cache otherwise choose.
	BeforeNodeSLOReconcile func(ctx context.Context, node string)
}

func (o *Options) crdRecheckInterval() time.Duration {
	if o.CRDRecheckInterval <= 0 {
		return DefaultCRDRecheckInterval
	}
	return o.CRDRecheckInterval
}

// DefaultOptions returns the settings used when no flag is given.
func DefaultOptions() Options {
	return Options{
		ConfigNamespace:         sloconfig.DefaultConfigMapNamespace,
		ConfigName:              sloconfig.DefaultConfigMapName,
		MaxConcurrentReconciles: 8,
	}
}

// BindFlags registers one flag per option on fs.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.ConfigNamespace, "config-namespace", o.ConfigNamespace,
		"Namespace of the slo-controller-config ConfigMap.")
	fs.StringVar(&o.ConfigName, "slo-config-name", o.ConfigName,
		"Name of the ConfigMap that holds the NodeSLO configuration.")
	fs.IntVar(&o.MaxConcurrentReconciles, "max-concurrent-reconciles", o.MaxConcurrentReconciles,
		"Number of NodeSLO reconciles run at once.")
	o.MetricGate.bindFlags(fs)
	fs.StringVar(&o.HealthGatePodNamespaces, "health-gate-pod-namespaces", o.HealthGatePodNamespaces,
		"Comma-separated namespaces whose Pods' evictions a rollout's health gate counts; the manager needs "+
			"list and watch of Pods in each. Empty: none; count koordlet's evictions with a metric check.")
}

// LimitsReader reads what the manager allows a strategy at the
// moment it is called: the flags, and the credentials directory's entries
// as the kubelet holds them then.
type LimitsReader func() rollout.Limits

// Limits are the options as a strategy is checked against them; an error
// says which option is wrong.
func (o *Options) Limits() (LimitsReader, error) {
	limits, err := o.keyLimits()
	if err != nil {
		return nil, err
	}
	return limits.now, nil
}

// keyLimits are the options, checked, from which the limits are read.
func (o *Options) keyLimits() (keyLimits, error) {
	hosts, err := rollout.ParseAllowedHosts(o.MetricGate.AllowedHosts)
	if err != nil {
		return keyLimits{}, fmt.Errorf("--metric-gate-allowed-hosts: %w", err)
	}
	if err := o.MetricGate.validateCredentialsDir(); err != nil {
		return keyLimits{}, fmt.Errorf("--metric-gate-credentials-dir: %w", err)
	}
	pods, err := rollout.ParsePodNamespaces(o.HealthGatePodNamespaces)
	if err != nil {
		return keyLimits{}, fmt.Errorf("--health-gate-pod-namespaces: %w", err)
	}
	return keyLimits{hosts: hosts, dir: o.MetricGate.CredentialsDir, podNamespaces: pods}, nil
}

// configKey is the namespaced name of the configured ConfigMap.
func (o *Options) configKey() types.NamespacedName {
	return types.NamespacedName{Namespace: o.ConfigNamespace, Name: o.ConfigName}
}

// CacheByObject restricts the manager's cache to what the controllers read.
// ConfigMaps and NodeSLORollouts: the one of the configuration's name, since a large cluster
// holds tens of thousands of them and RBAC only lets the controller read its
// own namespace. Nodes (watched as metadata only; the entry applies to that
// informer too, as the cache picks entries by kind): the inputs of
// resolving, see keepNodeResolveInputs. NodeSLOs (watched as metadata only): see storedslo.CacheTransform.
// The NodeSLO CRD (metadata only), by its name: see crd_watch.go.
// The manager's cache must also strip managedFields from every other object
// (cache.TransformStripManagedFields as its DefaultTransform): nothing here
// reads them.
func (o *Options) CacheByObject() map[client.Object]cache.ByObject {
	byObject := map[client.Object]cache.ByObject{
		&corev1.ConfigMap{}: {
			Namespaces: map[string]cache.Config{o.ConfigNamespace: {}},
			Field:      fields.OneTermEqualSelector("metadata.name", o.ConfigName),
		},
		&nodeslov1alpha1.NodeSLORollout{}: {
			Namespaces: map[string]cache.Config{o.ConfigNamespace: {}},
			Field:      fields.OneTermEqualSelector("metadata.name", o.ConfigName),
		},
		&corev1.Node{}:         {Transform: keepNodeResolveInputs()},
		&slov1alpha1.NodeSLO{}: {Transform: storedslo.CacheTransform()},
	}
	crd, entry := crdCacheEntry()
	byObject[crd] = entry
	return byObject
}
