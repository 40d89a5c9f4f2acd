package controller

import (
	"fmt"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/event"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
)

// The controllers' names, as their logs and controller-runtime's metrics
// (the "controller" label) name them.
const (
	NodeSLOController     = "nodeslo"
	ConfigCacheController = "config-cache"
	RolloutController     = "nodeslorollout"
)

// Controllers names the controllers of the manager.
var Controllers = []string{NodeSLOController, ConfigCacheController, RolloutController}

// releasedBuffer is how many nodes released by a rollout step may wait to
// be queued before the rollout controller waits for the NodeSLO controller.
const releasedBuffer = 1024

// eventRecorderName is the reporting controller on the Events it records.
const eventRecorderName = "nodeslo-controller"

// signals are the channels between the controllers and the health
// watch, each named for what it carries and with one sender. Buffers of
// one coalesce signals that mean "look again": a pending one covers the next.
type signals struct {
	// configLoaded: the config-cache controller loaded the ConfigMap
	// (the configs the two share hold the load); the rollout controller
	// decides on it.
	configLoaded chan event.GenericEvent
	// everyNode: the rollout controller published a Snapshot that
	// changes what nodes should hold; the NodeSLO controller reconciles
	// every node.
	everyNode chan event.GenericEvent
	// releasedNodes: the nodes a rollout step released, one event each,
	// from the rollout controller to the NodeSLO controller.
	releasedNodes chan event.GenericEvent
	// heldNodeWritten: the NodeSLO controller wrote a node the rollout's
	// gate held (its inputs changed); the rollout controller decides again.
	heldNodeWritten chan event.GenericEvent
	// healthChanged: the health watch saw a watched condition or an
	// eviction change; the rollout controller judges again.
	healthChanged chan event.GenericEvent
	// metricMeasured: a metric query ended (metric_measurer.go); the
	// rollout controller judges its sample.
	metricMeasured chan event.GenericEvent
	// credentialsChanged: the metric gate's credentials directory changed
	// (metric_gate_credentials_watch.go); the rollout controller
	// checks the strategy against it again.
	credentialsChanged chan event.GenericEvent
}

// nodeEvent is a signal about the node (and NodeSLO) name.
func nodeEvent(name string) event.GenericEvent {
	return event.GenericEvent{Object: &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: name}}}
}

// trySignal sends e on ch unless a signal is already pending there, so that
// a burst of them collapses to one reconcile.
func trySignal(ch chan<- event.GenericEvent, e event.GenericEvent) {
	select {
	case ch <- e:
	default:
	}
}

func newSignals() signals {
	return signals{
		configLoaded:    make(chan event.GenericEvent, 1),
		everyNode:       make(chan event.GenericEvent, 1),
		releasedNodes:   make(chan event.GenericEvent, releasedBuffer),
		heldNodeWritten: make(chan event.GenericEvent, 1),
		healthChanged:   make(chan event.GenericEvent, 1),
		metricMeasured:  make(chan event.GenericEvent, 1),

		credentialsChanged: make(chan event.GenericEvent, 1),
	}
}

// The permissions below are all the controllers need; leader election has its
// own Role (config/rbac/leader_election_role.yaml).
//
// Nodes: metadata is read through list/watch.
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=slo.koordinator.sh,resources=nodeslos,verbs=get;list;watch;create;update;delete
//
// Events are recorded through events.k8s.io (created, and patched when one
// repeats as a series) in two namespaces only, by a Role in each rather
// than a ClusterRole, so that the token writes Events nowhere else: the
// ConfigMap's (its own warnings, reverts and CRD skew; the marker below) and
// default, where client-go's recorder puts the Events of cluster-scoped
// objects (the Nodes' warnings; config/rbac/node_events_role.yaml, written
// by hand: a marker's Role would take the name of the one below, and
// config/default's namespace transformer would make the two collide).
// +kubebuilder:rbac:groups=events.k8s.io,namespace=koordinator-system,resources=events,verbs=create;patch
//
// A strategy's health gate (docs/rollout.md#health-gates) watches, while
// it judges a rollout, the Nodes' conditions (the nodes rule above). It
// reads no Event, and no Pod unless the administrator lists namespaces in
// --health-gate-pod-namespaces: then it lists and watches the Pods of its
// Pod selector there, granted by a Role in each that the chart makes
// (healthGate.podNamespaces), never by this ClusterRole, since whoever may
// create a Pod in a namespace counted can halt a gated rollout.
//
// The ConfigMap is read in its own namespace only (a Role, not a ClusterRole)
// and by its name only: the cache lists and watches it with a metadata.name
// field selector, which the apiserver authorises against resourceNames, so
// the other ConfigMaps of Koordinator's namespace stay out of reach. A
// deployment that changes --config-namespace or --slo-config-name must change
// this Role too. The controller never writes the ConfigMap: whoever may
// edit it gets nothing more through the controller.
// test/rbac checks these against the requests the code makes.
// +kubebuilder:rbac:groups="",namespace=koordinator-system,resources=configmaps,resourceNames=slo-controller-config,verbs=get;list;watch
//
// The NodeSLORollout of the same name (docs/rollout.md#the-nodeslorollout)
// holds the strategy and the controls (its spec, the operator's: the
// controller never writes it and never creates the object) and the
// rollout's status and record: watched by name like the ConfigMap, its
// status patched.
// +kubebuilder:rbac:groups=nodeslo.koordinator.sh,namespace=koordinator-system,resources=nodeslorollouts,resourceNames=slo-controller-config,verbs=list;watch
// +kubebuilder:rbac:groups=nodeslo.koordinator.sh,namespace=koordinator-system,resources=nodeslorollouts/status,resourceNames=slo-controller-config,verbs=patch
//
// The revision history (docs/rollout.md#revision-history-and-undo) is kept
// as ControllerRevisions in the ConfigMap's namespace: listed past the cache
// when the configuration changes, created, their outcome patched, the
// oldest deleted. Never watched, so never cached.
// +kubebuilder:rbac:groups=apps,namespace=koordinator-system,resources=controllerrevisions,verbs=list;create;patch;delete

// SetupWithManager adds the three controllers, the health watch and the
// strategy and out-of-date metrics to mgr. mgr's cache must have been built with
// opts.CacheByObject() so that it holds the one ConfigMap only.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	clk := opts.clock()
	published := &snapshots{}
	sig := newSignals()
	recorder := mgr.GetEventRecorder(eventRecorderName)

	health, err := newHealthWatch(mgr.GetConfig(), sig.healthChanged)
	if err != nil {
		return err
	}
	if err := mgr.Add(health); err != nil {
		return fmt.Errorf("adding the health gate's watch: %w", err)
	}
	limits, err := opts.keyLimits()
	if err != nil {
		return err
	}
	measurer := newMetricMeasurer(&prometheusQuerier{limits: limits}, sig.metricMeasured)
	if err := mgr.Add(measurer); err != nil {
		return fmt.Errorf("adding the metric gate's measurer: %w", err)
	}
	if err := mgr.Add(&credentialsWatch{limits: limits, changed: sig.credentialsChanged}); err != nil {
		return fmt.Errorf("adding the metric gate's credentials watch: %w", err)
	}
	writer, err := storedslo.NewRESTWriter(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return err
	}
	stored := storedslo.New(mgr.GetAPIReader(), mgr.GetClient(), writer, clk)
	configs := &atomic.Pointer[loadedConfigMap]{}
	configCache := &ConfigCacheReconciler{
		reader:   mgr.GetClient(),
		key:      opts.configKey(),
		recorder: recorder,
		configs:  configs,
		loaded:   sig.configLoaded,
	}
	if err := configCache.setupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the config-cache controller: %w", err)
	}
	rollouts := &NodeSLORolloutReconciler{
		client:    mgr.GetClient(),
		apiReader: mgr.GetAPIReader(),
		stored:    stored,
		key:       opts.configKey(),
		configs:   configs,
		limits:    limits.now,
		snapshots: published,
		recorder:  recorder,
		clock:     clk,
		signals:   sig,
		skew:      newCRDSkew(mgr.GetClient(), recorder, opts.crdRecheckInterval()),
		health:    health,
		metrics:   measurer,
	}
	if err := rollouts.setupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the rollout controller: %w", err)
	}
	nodeSLOs := &NodeSLOReconciler{
		cache:           mgr.GetClient(),
		live:            mgr.GetAPIReader(),
		snapshots:       published,
		stored:          stored,
		recorder:        recorder,
		heldNodeWritten: sig.heldNodeWritten,
		before:          opts.BeforeNodeSLOReconcile,
	}
	if err := nodeSLOs.setupWithManager(mgr, sig, opts.MaxConcurrentReconciles); err != nil {
		return fmt.Errorf("setting up the NodeSLO controller: %w", err)
	}
	// The two metrics are registered while this replica leads (addLeaderMetric).
	if err := addLeaderMetric(mgr, MetricStrategyNodes, newStrategyNodes(published, mgr.GetClient())); err != nil {
		return fmt.Errorf("adding the %s metric: %w", MetricStrategyNodes, err)
	}
	if err := addLeaderMetric(mgr, MetricOutOfDateNodes, newOutOfDateNodes(published, mgr.GetClient())); err != nil {
		return fmt.Errorf("adding the %s metric: %w", MetricOutOfDateNodes, err)
	}
	return nil
}

// clock is the options' clock, the real one unless a test set another.
func (o *Options) clock() clock.WithDelayedExecution {
	if o.Clock == nil {
		return clock.RealClock{}
	}
	return o.Clock
}
