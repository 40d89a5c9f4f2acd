package controller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
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
)

// Event reasons on the ConfigMap about its keys (sloconfig.KeyEvents).
const (
	ReasonInvalidConfig = sloconfig.ReasonInvalidConfig
	ReasonConfigWarning = sloconfig.ReasonConfigWarning
)

// ConfigCacheReconciler is the config-cache controller: it loads the
// slo-controller-config ConfigMap and publishes what the NodeSLO
// controller needs as one Snapshot: the configuration, the fields of it the
// installed CRD drops, and, when the ConfigMap asks for a staged rollout,
// the gate of the rollout its rolloutDriver drives. It writes no ConfigMap:
// the rollout's record and status go on the NodeSLORollout of the same
// name (rollout_object.go).
//
// It runs with one worker and reconciles one name, so its fields need no lock.
type ConfigCacheReconciler struct {
	// reader reads the ConfigMap from the cache.
	reader client.Reader
	key    types.NamespacedName
	// limits reads what the manager allows a strategy's metric
	// checks, its credentials directory as it is at each reconcile.
	limits    LimitsReader
	snapshots *snapshots
	recorder  events.EventRecorder
	clock     clock.WithDelayedExecution
	signals   signals

	// loadedVersion is the resourceVersion of the ConfigMap last loaded ("" = absent),
	// so that a periodic resync of an unchanged ConfigMap does no work;
	// loadedData the configuration its data loaded into, which the health
	// gate may keep out of force.
	loadedVersion string
	loadedData    *sloconfig.Config
	// reported identifies the Events last emitted, so that none is repeated
	// until what there is to say changes.
	reported string
	// reportedStrategy identifies the strategy's Events last emitted
	// (strategy_report.go).
	reportedStrategy string
	// skew finds the fields of the configuration the installed CRD drops.
	skew *crdSkew
	// rollout drives the staged rollout the ConfigMap asks for.
	rollout *rolloutDriver
}

// configMapRead is what one reconcile reads: the ConfigMap and the
// NodeSLORollout of its name.
type configMapRead struct {
	cm *corev1.ConfigMap
	// exists is false when there is no ConfigMap (cm is then empty).
	exists bool
	// version is its resourceVersion ("" when it does not exist).
	version string
	// rolloutRelevant: there is a strategy, or a record to remove.
	rolloutRelevant bool
	// rollout is the NodeSLORollout's strategy, compiled once for the
	// whole reconcile, with its pause; it outlives a deleted ConfigMap.
	rollout rollout.Key
	// rolloutKey is the strategy's JSON ("" when there is none).
	rolloutKey string
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
// read the ConfigMap and the NodeSLORollout; load the configuration and
// decide which one is in force; find the fields the CRD drops; decide the
// rollout (internal/rollout, without a client); keep the revision
// history; write the NodeSLORollout's status once; publish the Snapshot.
// Nothing depends on why it was woken.
func (r *ConfigCacheReconciler) Reconcile(ctx context.Context, _ reconcile.Request) (ctrl.Result, error) {
	now := r.clock.Now()
	read, err := r.read(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	r.reportStrategy(read)
	if r.unchanged(read, now) {
		return ctrl.Result{}, nil
	}
	cfg, err := r.rollout.inForce(ctx, read, r.load(ctx, read), r.snapshots.config())
	if err != nil {
		return ctrl.Result{}, err
	}
	dropped := r.dropped(ctx, read, cfg, now)
	plan, err := r.rollout.plan(ctx, read, cfg, r.snapshots.config(), dropped, now)
	if err != nil {
		// Nothing is published: a configuration without its gate would
		// reach every pending node at once. The Snapshot in force stays;
		// the conditions say why.
		return ctrl.Result{}, errors.Join(err,
			r.rollout.reportPlanFailure(ctx, read, cfg.cfg.Fingerprint(), err, now))
	}
	historyErr := r.rollout.keepHistory(ctx, read, cfg, plan.Figures, plan.Gate.Bases())
	plan, statusErr := r.rollout.writeStatus(ctx, read, plan, r.rollout.revisionOf(cfg.cfg), now)
	r.publish(ctx, read, cfg, dropped, plan, now)
	if err := errors.Join(statusErr, historyErr); err != nil {
		return ctrl.Result{}, err
	}
	return r.requeueAt(earliest(plan.NextAt, earliest(r.skew.nextAt(), r.rollout.revertAt(read, plan, cfg, now)))), nil
}

// minRequeue keeps a next step already due from spinning the queue.
const minRequeue = 100 * time.Millisecond

// requeueAt asks to reconcile again at t (zero: no timed reconcile).
func (r *ConfigCacheReconciler) requeueAt(t time.Time) ctrl.Result {
	if t.IsZero() {
		return ctrl.Result{}
	}
	return ctrl.Result{RequeueAfter: max(t.Sub(r.clock.Now()), minRequeue)}
}

// earliest is the earlier of two times, zero standing for "never".
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// read reads the ConfigMap and the NodeSLORollout from the cache, and
// compiles the NodeSLORollout's strategy once, with its pause.
func (r *ConfigCacheReconciler) read(ctx context.Context) (configMapRead, error) {
	cm, exists, err := r.readConfigMap(ctx)
	if err != nil {
		return configMapRead{}, err
	}
	out := configMapRead{cm: cm, exists: exists}
	if out.object, err = r.rollout.readRolloutObject(ctx); err != nil {
		return configMapRead{}, err
	}
	if exists {
		out.version = cm.ResourceVersion
	}
	if obj := out.object.obj; obj != nil {
		limits := r.limits()
		out.rollout = rollout.LoadStrategy(&obj.Spec, &limits)
		out.rolloutKey = out.rollout.Raw
	}
	out.rolloutRelevant = out.rollout.Present || out.object.HasRecord
	return out, nil
}

// readConfigMap reads the ConfigMap from the cache; exists is false when
// there is none (an empty ConfigMap of its name is then returned, so that
// Events about a rollout of the defaults still name it).
func (r *ConfigCacheReconciler) readConfigMap(ctx context.Context) (*corev1.ConfigMap, bool, error) {
	cm := &corev1.ConfigMap{}
	if err := r.reader.Get(ctx, r.key, cm); err != nil {
		if !apierrors.IsNotFound(err) {
			return nil, false, fmt.Errorf("reading ConfigMap %s: %w", r.key, err)
		}
		absent := &corev1.ConfigMap{}
		absent.Namespace, absent.Name = r.key.Namespace, r.key.Name
		return absent, false, nil
	}
	return cm, true, nil
}

// unchanged reports whether this reconcile has nothing to do: the
// ConfigMap loaded last, without a rollout, a gate to release or a status
// to write (a periodic resync). Before the first load, and when a dry run
// of the configuration is due, there is always work.
func (r *ConfigCacheReconciler) unchanged(read configMapRead, now time.Time) bool {
	cfg := r.snapshots.config()
	if cfg == nil || r.rollout.history.fingerprint != cfg.Fingerprint() || r.skew.due(cfg, now) {
		return false
	}
	return !read.rolloutRelevant && read.version == r.loadedVersion && !r.rollout.memory.HoldsNodes() &&
		read.object.observed(read.version)
}

// dropped finds the fields of the configuration in force the installed
// CRD drops; when the dry run fails, what is known is published, and the
// digests still decide (storedslo).
func (r *ConfigCacheReconciler) dropped(ctx context.Context, read configMapRead, cfg loaded, now time.Time) []string {
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

// load loads the ConfigMap when it changed since the last load (or nothing
// was loaded yet), sets the configuration metrics and reports its problems.
// A deleted ConfigMap means defaults, whatever was in force before: the
// result depends on the cluster as it is, not on history. What goes in
// force is decided after (rolloutDriver.inForce).
func (r *ConfigCacheReconciler) load(ctx context.Context, read configMapRead) loaded {
	old := r.loadedData
	if old != nil && read.version == r.loadedVersion {
		return loaded{cfg: old}
	}
	var data map[string]string
	base := old
	if read.exists {
		data = read.cm.Data
		if data == nil {
			data = map[string]string{}
		}
	} else {
		base = nil
	}
	cfg := sloconfig.Load(data, base)
	r.loadedVersion, r.loadedData = read.version, cfg
	recordValidity(cfg)
	if read.exists {
		r.report(ctx, read.cm, cfg)
	} else {
		r.reported = ""
	}
	return loaded{cfg: cfg}
}

// publish makes cfg, with the fields the CRD drops and the plan's gate,
// decided at now, the Snapshot in force, says what the plan did, and has the NodeSLO
// controller reconcile what changed: every node when the Snapshot changes
// what nodes should hold, else the nodes the plan released.
func (r *ConfigCacheReconciler) publish(
	ctx context.Context, read configMapRead, cfg loaded, dropped []string, plan rollout.Plan, now time.Time,
) {
	r.rollout.memory = plan.Memory()
	snap := &Snapshot{Config: cfg.cfg, Gate: plan.Gate, Dropped: dropped, Decided: now,
		Revision: r.rollout.revisionOf(cfg.cfg)}
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
		select {
		case r.signals.everyNode <- event.GenericEvent{Object: read.cm}:
		default: // a signal is already pending; it will reconcile every node too
		}
		return
	}
	r.rollout.enqueueReleased(ctx, plan.Release)
}

// report records an Event and a log line per error and warning, unless the
// same were already reported for this ConfigMap.
func (r *ConfigCacheReconciler) report(ctx context.Context, cm *corev1.ConfigMap, cfg *sloconfig.Config) {
	evs := sloconfig.KeyEvents(cm.Data, cm.BinaryData, cfg, rollout.RetiredKeyLines(cm.Data))
	var b strings.Builder
	b.WriteString(string(cm.UID))
	for _, e := range evs {
		b.WriteString("\x00" + e.Reason + "\x00" + e.Note())
	}
	if b.String() == r.reported {
		return
	}
	r.reported = b.String()

	// Logged at info level: a stack trace would say nothing about a typo in a ConfigMap.
	log := logf.FromContext(ctx)
	for _, e := range evs {
		for _, m := range e.Messages {
			log.Info("Configuration problem", "reason", e.Reason, "message", m)
		}
		r.recorder.Eventf(cm, nil, corev1.EventTypeWarning, e.Reason, e.Action, "%s", e.Note())
	}
}

// setupWithManager registers the controller; it watches the one ConfigMap
// and the spec of the NodeSLORollout of its name (its status is this
// controller's own write, which wakes nothing), and is also started once at
// start-up, so that an absent ConfigMap is loaded (as defaults) too. It is
// woken, too, when a node the rollout held was written because its inputs
// changed, when the health watch saw a change, when a metric query ended,
// and when the metric gate's credentials directory changed.
func (r *ConfigCacheReconciler) setupWithManager(mgr ctrl.Manager) error {
	isConfig := predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetNamespace() == r.key.Namespace && o.GetName() == r.key.Name
	})
	theConfig := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: r.key}}
	})
	loadAtStart := source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		q.Add(reconcile.Request{NamespacedName: r.key})
		return nil
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named(ConfigCacheController).
		For(&corev1.ConfigMap{}, builder.WithPredicates(isConfig)).
		Watches(&nodeslov1alpha1.NodeSLORollout{}, theConfig,
			builder.WithPredicates(isConfig, predicate.GenerationChangedPredicate{})).
		WatchesRawSource(loadAtStart).
		WatchesRawSource(source.Channel(r.signals.heldNodeWritten, theConfig)).
		WatchesRawSource(source.Channel(r.signals.healthChanged, theConfig)).
		WatchesRawSource(source.Channel(r.signals.metricMeasured, theConfig)).
		WatchesRawSource(source.Channel(r.signals.credentialsChanged, theConfig)).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1, NewQueue: newQueueOnClock(r.clock),
			RateLimiter: retryBackoff(maxRolloutRetryBackoff)}).
		Complete(r)
}
