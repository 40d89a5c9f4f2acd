package controller

import (
	"context"
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// reachedBuffer is how many nodes reached by a rollout step may wait to be
// queued before the config-cache controller waits for the NodeSLO controller.
const reachedBuffer = 1024

// eventRecorderName is the reporting controller on the Events it records.
const eventRecorderName = "nodeslo-controller"

// The permissions below are all the controllers need; leader election has its
// own Role (config/rbac/leader_election_role.yaml).
//
// Nodes: metadata is read through list/watch; the Events on them are created
// through events.k8s.io, in namespace default for cluster-scoped objects.
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=slo.koordinator.sh,resources=nodeslos,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
//
// A rollout key's health gate (docs/rollout.md#health-gates) watches, while
// it judges a rollout, the Nodes' conditions (the nodes rule above) and the
// Events of its eviction reasons, listed by reason in every namespace.
// +kubebuilder:rbac:groups="",resources=events,verbs=list;watch
//
// The ConfigMap is read in its own namespace only (a Role, not a ClusterRole)
// and by its name only: the cache lists and watches it with a metadata.name
// field selector, which the apiserver authorises against resourceNames, so
// the other ConfigMaps of Koordinator's namespace stay out of reach. A
// deployment that changes --config-namespace or --slo-config-name must change
// this Role too. The one ConfigMap is patched (never updated) only to keep
// the record of a staged rollout in its annotation (docs/rollout.md).
// test/rbac checks these against the requests the code makes.
// +kubebuilder:rbac:groups="",namespace=koordinator-system,resources=configmaps,resourceNames=slo-controller-config,verbs=get;list;watch;patch
//
// The revision history (docs/rollout.md#revision-history-and-undo) is kept
// as ControllerRevisions in the ConfigMap's namespace: listed past the cache
// when the configuration changes, created, their outcome patched, the
// oldest deleted. Never watched, so never cached.
// +kubebuilder:rbac:groups=apps,namespace=koordinator-system,resources=controllerrevisions,verbs=list;create;patch;delete

// SetupWithManager adds both controllers to mgr. mgr's cache must have been
// built with opts.CacheByObject() so that it holds the one ConfigMap only.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	store := &Store{}
	configChanged := make(chan event.GenericEvent, 1)
	reached := make(chan event.GenericEvent, reachedBuffer)
	released := make(chan event.GenericEvent, 1)
	recorder := mgr.GetEventRecorder(eventRecorderName)

	skew := newCRDSkew(opts.crdRecheckInterval())
	configs := &ConfigCacheReconciler{
		skew:          skew,
		reader:        mgr.GetClient(),
		key:           opts.configKey(),
		store:         store,
		recorder:      recorder,
		configChanged: configChanged,
		apiReader:     mgr.GetAPIReader(),
		client:        mgr.GetClient(),
		reached:       reached,
	}
	health, err := newHealthWatch(mgr.GetConfig(), released)
	if err != nil {
		return err
	}
	configs.health = health
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		health.stop()
		return nil
	})); err != nil {
		return fmt.Errorf("adding the health gate's shutdown: %w", err)
	}
	if err := configs.setupWithManager(mgr, released); err != nil {
		return fmt.Errorf("setting up the config-cache controller: %w", err)
	}
	writer, err := newSpecWriter(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return err
	}
	nodeSLOs := &NodeSLOReconciler{
		client:       mgr.GetClient(),
		writer:       writer,
		apiReader:    mgr.GetAPIReader(),
		store:        store,
		recorder:     recorder,
		released:     released,
		own:          newOwnWrites(),
		skew:         skew,
		configKey:    opts.configKey(),
		reconcileAll: configChanged,
	}
	if err := nodeSLOs.setupWithManager(mgr, configChanged, reached, opts.MaxConcurrentReconciles); err != nil {
		return fmt.Errorf("setting up the NodeSLO controller: %w", err)
	}
	if err := addStrategyNodesMetric(mgr, store); err != nil {
		return fmt.Errorf("adding the %s metric: %w", MetricStrategyNodes, err)
	}
	if err := mgr.Add(recheckCRD(mgr.GetClient(), skew, reached)); err != nil {
		return fmt.Errorf("adding the CRD recheck: %w", err)
	}
	return nil
}
