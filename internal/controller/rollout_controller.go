package controller

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
)

// NodeSLORolloutReconciler is the rollout controller: from the
// configuration the config-cache controller loaded and the NodeSLORollout
// of the ConfigMap's name (docs/rollout.md#the-nodeslorollout), it decides
// which configuration is in force and which nodes its staged rollout holds
// (internal/rollout decides, without a client), keeps the revision
// history, writes the NodeSLORollout's status, and publishes the Snapshot
// the NodeSLO controller applies. It is the Snapshot's only writer.
//
// It runs with one worker and reconciles one name, so its fields need no
// lock: they are what the last decision left for the next, and what was
// last written, so that nothing is written twice.
type NodeSLORolloutReconciler struct {
	// client reads Nodes, NodeSLOs and the NodeSLORollout from the cache
	// and writes the NodeSLORollout's status and the history; apiReader
	// reads the history and the ConfigMap's managedFields past the cache.
	client    client.Client
	apiReader client.Reader
	// stored reads what is stored for every node (the NodeSLO reconciler's Store).
	stored *storedslo.Store
	// key names the ConfigMap and the NodeSLORollout (the same name).
	key types.NamespacedName
	// configs is what the config-cache controller loaded last (nil: nothing yet).
	configs *atomic.Pointer[loadedConfigMap]
	// limits reads what the manager allows a strategy's metric checks,
	// its credentials directory as it is at each reconcile.
	limits    LimitsReader
	snapshots *snapshots
	recorder  events.EventRecorder
	clock     clock.WithDelayedExecution
	signals   signals
	// skew finds the fields of the configuration in force the installed
	// CRD drops.
	skew *crdSkew
	// health watches the nodes while a strategy's health gate judges a
	// rollout (docs/rollout.md#health-gates).
	health *healthWatch
	// metrics runs the health gate's metric queries beside the decision.
	metrics *metricMeasurer

	// decided is the load of the ConfigMap the Snapshot in force was
	// decided on (nil: none yet), so that a wake-up with nothing new does
	// no work.
	decided *loadedConfigMap
	// memory is what the last decision left for the next.
	memory rollout.Memory
	// history is the revision in force as last written; a configuration
	// not yet recorded (a failed write) is never skipped.
	history revisionInForce
	// historyConfigs are the configurations of the revision history as
	// last listed, newest first: a held node stays on the one in force for
	// it (rollout.PlanInput.Before).
	historyConfigs []*sloconfig.Config
	// historyNumbers has, by fingerprint, the number of each one's newest
	// revision (rollout.PlanInput.Numbers; nil: not listed yet).
	historyNumbers map[string]int64
	// written is the NodeSLORollout as our last status write returned it,
	// until the cache shows it (rollout_object.go).
	written *nodeslov1alpha1.NodeSLORollout
	// conflicted: the last status write was refused with a conflict, so
	// the NodeSLORollout is read from the apiserver until one succeeds
	// (rollout_object.go).
	conflicted bool
	// revertRefused is the configuration whose revert was refused (and said so) last.
	revertRefused string
	// reportedStrategy identifies the strategy's Events last emitted
	// (strategy_report.go).
	reportedStrategy string
}

// rolloutRead is what one reconcile reads: the ConfigMap as the
// config-cache controller loaded it last, and the NodeSLORollout.
type rolloutRead struct {
	// The ConfigMap's load (never nil in a reconcile that decides).
	*loadedConfigMap
	// rollout is the NodeSLORollout's strategy, compiled once for the
	// whole reconcile, with its pause; its Raw is the strategy's JSON (""
	// when there is none).
	rollout rollout.Key
	// object is the NodeSLORollout: the record and the operator's controls.
	object rolloutObject
}

// loaded is the configuration a reconcile publishes.
type loaded struct {
	cfg *sloconfig.Config
	// changed: its fingerprint differs from the one in force before.
	changed bool
	// data is the fingerprint of the ConfigMap's data; it differs from
	// cfg's while the health gate withholds the data (rollout_revert.go).
	data string
	// revertOf is the halted configuration cfg replaces under a health
	// gate's revert, and changeCause what its revision says of it.
	revertOf, changeCause string
}

// Reconcile runs in phases, each working from what the ones before left:
// read the NodeSLORollout and the ConfigMap's last load; decide which
// configuration is in force; find the fields the CRD drops; plan the
// rollout (internal/rollout, without a client); keep the revision
// history; write the NodeSLORollout's status once, a failed plan's
// included; publish the Snapshot. Nothing depends on why it was woken.
func (r *NodeSLORolloutReconciler) Reconcile(ctx context.Context, _ reconcile.Request) (ctrl.Result, error) {
	now := r.clock.Now()
	read, err := r.read(ctx)
	if err != nil || read.loadedConfigMap == nil {
		// Before the first load there is nothing to decide on; the
		// config-cache controller's signal comes with it.
		return ctrl.Result{}, err
	}
	r.reportStrategy(read)
	if r.unchanged(read, now) {
		return ctrl.Result{}, nil
	}
	cfg, err := r.inForce(ctx, read, loaded{cfg: read.cfg}, r.snapshots.config())
	if err != nil {
		return ctrl.Result{}, errors.Join(err, r.reportPlanFailure(ctx, read, read.cfg.Fingerprint(), err, now))
	}
	dropped := r.dropped(ctx, read, cfg, now)
	plan, err := r.plan(ctx, read, cfg, r.snapshots.config(), dropped, now)
	if err != nil {
		// Nothing is published: a configuration without its gate would
		// reach every pending node at once. The Snapshot in force stays;
		// the conditions say why.
		return ctrl.Result{}, errors.Join(err, r.reportPlanFailure(ctx, read, cfg.cfg.Fingerprint(), err, now))
	}
	historyErr := r.keepHistory(ctx, read, cfg, plan.Figures, plan.Gate.Bases())
	plan, statusErr := r.writeStatus(ctx, read, plan, r.revisionOf(cfg.cfg), now)
	r.publish(ctx, read, cfg, dropped, plan, now)
	if err := errors.Join(statusErr, historyErr); err != nil {
		return ctrl.Result{}, err
	}
	next := rollout.Earliest(plan.NextAt, rollout.Earliest(r.skew.nextAt(), r.revertAt(read, plan, cfg, now)))
	return r.requeueAt(next), nil
}

// minRequeue keeps a next step already due from spinning the queue.
const minRequeue = 100 * time.Millisecond

// requeueAt asks to reconcile again at t (zero: no timed reconcile).
func (r *NodeSLORolloutReconciler) requeueAt(t time.Time) ctrl.Result {
	if t.IsZero() {
		return ctrl.Result{}
	}
	return ctrl.Result{RequeueAfter: max(t.Sub(r.clock.Now()), minRequeue)}
}

// read takes the ConfigMap's last load, reads the NodeSLORollout from the
// cache, and compiles its strategy once, with its pause.
func (r *NodeSLORolloutReconciler) read(ctx context.Context) (rolloutRead, error) {
	load := r.configs.Load()
	if load == nil {
		return rolloutRead{}, nil
	}
	out := rolloutRead{loadedConfigMap: load}
	var err error
	if out.object, err = r.readRolloutObject(ctx); err != nil {
		return rolloutRead{}, err
	}
	if obj := out.object.obj; obj != nil {
		limits := r.limits()
		out.rollout = rollout.LoadStrategy(&obj.Spec, &limits)
	}
	return out, nil
}

// unchanged reports whether this reconcile has nothing to do: the load
// decided on last, without a rollout, a gate to release or a status to
// write (a periodic resync). Before the first decision, and when a dry
// run of the configuration is due, there is always work.
func (r *NodeSLORolloutReconciler) unchanged(read rolloutRead, now time.Time) bool {
	cfg := r.snapshots.config()
	if cfg == nil || r.history.fingerprint != cfg.Fingerprint() || r.skew.due(cfg, now) {
		return false
	}
	// A strategy, or a record to remove, is always work.
	return !read.rollout.Present && !read.object.HasRecord && read.loadedConfigMap == r.decided &&
		!r.memory.HoldsNodes() && read.object.observed(read.version)
}

// dropped finds the fields of the configuration in force the installed
// CRD drops; when the dry run fails, what is known is published, and the
// digests still decide (storedslo).
func (r *NodeSLORolloutReconciler) dropped(ctx context.Context, read rolloutRead, cfg loaded, now time.Time) []string {
	var on *corev1.ConfigMap
	if read.exists {
		on = read.cm
	}
	dropped, err := r.skew.droppedFor(ctx, cfg.cfg, on, now)
	if err != nil {
		logf.FromContext(ctx).Info("Cannot dry-run the configuration; trying again later", "error", err.Error())
	}
	return dropped
}

// publish makes cfg, with the fields the CRD drops and the plan's gate,
// decided at now, the Snapshot in force, says what the plan did, and has
// the NodeSLO controller reconcile what changed: every node when the
// Snapshot changes what nodes should hold, else the nodes the plan released
// and those whose stamps it writes (Gate.Restamped).
func (r *NodeSLORolloutReconciler) publish(
	ctx context.Context, read rolloutRead, cfg loaded, dropped []string, plan rollout.Plan, now time.Time,
) {
	r.memory, r.decided = plan.Memory(), read.loadedConfigMap
	snap := &Snapshot{Config: cfg.cfg, Gate: plan.Gate, Dropped: dropped, Decided: now,
		Revision: r.revisionOf(cfg.cfg)}
	before := r.snapshots.load()
	r.snapshots.publish(snap)
	recordInForce(cfg.cfg, cfg.changed)
	if plan.Figures != nil {
		exportRollout(*plan.Figures)
	}
	for _, e := range plan.Events {
		r.recorder.Eventf(read.cm, nil, e.Type, e.Reason, e.Action, "%s", e.Note)
	}
	if !snap.sameFor(before) {
		logf.FromContext(ctx).Info("Configuration in force changed; reconciling every node",
			"configMapExists", read.exists, "fingerprint", cfg.cfg.Fingerprint(), "droppedByCRD", dropped,
			"nodesHeld", plan.Gate.Len())
		trySignal(r.signals.everyNode, event.GenericEvent{Object: read.cm}) // a pending one reconciles every node too
		return
	}
	r.enqueueReleased(ctx, slices.Concat(plan.Release, plan.Gate.Restamped()))
}

// setupWithManager registers the controller for the NodeSLORollout of the
// ConfigMap's name: woken by a change of its spec (its status is this
// controller's own write, which wakes nothing), by each load of the
// ConfigMap, when a node the rollout held was written because its inputs
// changed, when the health watch saw a change, when a metric query ended,
// when the metric gate's credentials directory changed, and when the
// NodeSLO CRD changed (crd_watch.go).
func (r *NodeSLORolloutReconciler) setupWithManager(mgr ctrl.Manager) error {
	theRollout := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: r.key}}
	})
	b := ctrl.NewControllerManagedBy(mgr).
		Named(RolloutController).
		For(&nodeslov1alpha1.NodeSLORollout{},
			builder.WithPredicates(named(r.key), predicate.GenerationChangedPredicate{}))
	return r.watchesNodeSLOCRD(b).
		WatchesRawSource(source.Channel(r.signals.configLoaded, theRollout)).
		WatchesRawSource(source.Channel(r.signals.heldNodeWritten, theRollout)).
		WatchesRawSource(source.Channel(r.signals.healthChanged, theRollout)).
		WatchesRawSource(source.Channel(r.signals.metricMeasured, theRollout)).
		WatchesRawSource(source.Channel(r.signals.credentialsChanged, theRollout)).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1, NewQueue: newQueueOnClock(r.clock),
			RateLimiter: retryBackoff(maxRolloutRetryBackoff)}).
		Complete(r)
}

// named matches the object of key's namespace and name only.
func named(key types.NamespacedName) predicate.Predicate {
	return predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetNamespace() == key.Namespace && o.GetName() == key.Name
	})
}
