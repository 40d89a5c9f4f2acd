package controller

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
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

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Event reasons on the ConfigMap.
const (
	// ReasonInvalidConfig: a key's value was rejected; the message names the
	// key, the JSON path and why, and says which value stays in force.
	ReasonInvalidConfig = "InvalidConfig"
	// ReasonConfigWarning: a key's value was accepted, with an oddity worth fixing.
	ReasonConfigWarning = "ConfigWarning"
)

// ConfigCacheReconciler is the config-cache controller: it loads the
// slo-controller-config ConfigMap and publishes what the NodeSLO
// controller needs as one Snapshot: the configuration, the fields of it the
// installed CRD drops, and, when the ConfigMap asks for a staged rollout,
// the gate of the rollout its rolloutDriver drives.
//
// It runs with one worker and reconciles one name, so its fields need no
// lock, except the wake-up causes set by the sources.
type ConfigCacheReconciler struct {
	// reader reads the ConfigMap from the cache; apiReader past it when it
	// carries a rollout.
	reader    client.Reader
	apiReader client.Reader
	key       types.NamespacedName
	// limits are what the manager allows the rollout key's metric checks.
	limits    rollout.MetricLimits
	snapshots *snapshots
	recorder  events.EventRecorder
	clock     clock.Clock
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
	// skew finds the fields of the configuration the installed CRD drops.
	skew *crdSkew
	// rollout drives the staged rollout the ConfigMap asks for.
	rollout *rolloutDriver
	// heldNodeWritten, healthChanged and metricMeasured say what woke this
	// reconcile besides the ConfigMap: each has it decide the rollout
	// again, even on the echo of its own record write.
	heldNodeWritten, healthChanged, metricMeasured atomic.Bool
	// revertDue: the last plan halted the ConfigMap's data under
	// onUnhealthy revert; the revert comes with the next decision, which
	// the echo of the record write must not skip.
	revertDue bool
}

// configMapRead is the ConfigMap as one reconcile read it.
type configMapRead struct {
	cm *corev1.ConfigMap
	// exists is false when there is no ConfigMap (cm is then empty).
	exists bool
	// version is its resourceVersion ("" when it does not exist).
	version string
	// rolloutRelevant: cm asks for a staged rollout or carries its record
	// (rollout.Relevant); cm was then read past the cache.
	rolloutRelevant bool
	// rollout is cm's rollout key, parsed once for the whole reconcile; for
	// a ConfigMap that does not exist, the key it had (orphanRollout).
	rollout rollout.Key
	// rolloutKey is the key's value as written ("" when absent).
	rolloutKey string
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

// skip names why a reconcile has nothing to do ("": it has work).
type skip string

const (
	// skipUnchanged: the ConfigMap loaded last, without a rollout or a gate
	// to release (a periodic resync).
	skipUnchanged skip = "unchanged ConfigMap"
	// skipOwnRecordWrite: the watch event of our own record write, with no
	// step due yet, and no held node written nor health change since.
	skipOwnRecordWrite skip = "own rollout record write"
)

// Reconcile reads the ConfigMap, loads it (absent = all defaults), finds
// the fields the CRD drops, plans the rollout, persists the rollout's
// record, publishes the Snapshot, and keeps the revision history.
func (r *ConfigCacheReconciler) Reconcile(ctx context.Context, _ reconcile.Request) (ctrl.Result, error) {
	read, err := r.read(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	now := r.clock.Now()
	woken := r.heldNodeWritten.Swap(false) || r.healthChanged.Swap(false) || r.metricMeasured.Swap(false) ||
		r.revertDue
	r.revertDue = false
	switch r.skipReason(read, woken, now) {
	case skipUnchanged:
		return ctrl.Result{}, nil
	case skipOwnRecordWrite:
		return r.requeueAt(earliest(r.rollout.memory.NextAt(), r.skew.nextAt())), nil
	}
	cfg, err := r.rollout.inForce(ctx, read, r.load(ctx, read), r.snapshots.config())
	if err != nil {
		return ctrl.Result{}, err
	}
	dropped, probeErr := r.skew.droppedFor(ctx, cfg.cfg, reportOn(read), now)
	if probeErr != nil {
		// Published with what is known; digests still decide (storedslo).
		logf.FromContext(ctx).Info("Cannot dry-run the configuration; trying again later", "error", probeErr.Error())
	}
	plan, err := r.rollout.plan(ctx, read, cfg, dropped, now)
	if err != nil {
		r.publish(ctx, read, cfg, dropped, r.rollout.memory.Ungated(), now)
		return ctrl.Result{}, err
	}
	plan, persistErr := r.rollout.persistRecord(ctx, read.cm, plan)
	if read.exists && read.cm.ResourceVersion != read.version && r.loadedVersion == read.version {
		// Only the record annotation changed: the configuration loaded still stands.
		r.loadedVersion = read.cm.ResourceVersion
	}
	r.publish(ctx, read, cfg, dropped, plan, now)
	if persistErr != nil {
		return ctrl.Result{}, persistErr
	}
	if err := r.rollout.keepHistory(ctx, read, cfg, plan.Figures, plan.Status); err != nil {
		return ctrl.Result{}, err
	}
	if read.rollout.Present && r.rollout.revertDue(read, plan, cfg.data) {
		r.revertDue = true
		return ctrl.Result{RequeueAfter: minRequeue}, nil
	}
	return r.requeueAt(earliest(plan.NextAt, r.skew.nextAt())), nil
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

// reportOn is the ConfigMap read, to record Events on; nil when it does not exist.
func reportOn(read configMapRead) *corev1.ConfigMap {
	if !read.exists {
		return nil
	}
	return read.cm
}

// earliest is the earlier of two times, zero standing for "never".
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// read reads the ConfigMap from the cache or, when it carries a rollout,
// from the apiserver: the rollout record must not come from a cache that
// may not have seen our last write yet, as a stale record could repeat a step.
func (r *ConfigCacheReconciler) read(ctx context.Context) (configMapRead, error) {
	cm, exists, err := r.readConfigMap(ctx, r.reader)
	if err != nil {
		return configMapRead{}, err
	}
	if exists && rollout.Relevant(cm.Data, cm.Annotations) {
		if cm, exists, err = r.readConfigMap(ctx, r.apiReader); err != nil {
			return configMapRead{}, err
		}
	}
	out := configMapRead{cm: cm, exists: exists}
	if exists {
		out.version = cm.ResourceVersion
		out.rolloutRelevant = rollout.Relevant(cm.Data, cm.Annotations)
		out.rolloutKey = cm.Data[string(sloconfig.KeyRollout)]
	} else if out.rolloutKey, err = r.rollout.orphanRolloutKey(ctx); err != nil {
		return configMapRead{}, err
	}
	if out.rolloutKey != "" || exists {
		out.rollout = rollout.LoadKeyWithin(rolloutData(cm.Data, out.rolloutKey, exists), r.limits)
	}
	r.rollout.orphan.keep(out)
	return out, nil
}

// readConfigMap reads the ConfigMap through reader; exists is false when
// there is none (an empty ConfigMap is then returned).
func (r *ConfigCacheReconciler) readConfigMap(
	ctx context.Context, reader client.Reader,
) (*corev1.ConfigMap, bool, error) {
	cm := &corev1.ConfigMap{}
	if err := reader.Get(ctx, r.key, cm); err != nil {
		if !apierrors.IsNotFound(err) {
			return nil, false, fmt.Errorf("reading ConfigMap %s: %w", r.key, err)
		}
		// Events about a rollout of the defaults still name the ConfigMap.
		absent := &corev1.ConfigMap{}
		absent.Namespace, absent.Name = r.key.Namespace, r.key.Name
		return absent, false, nil
	}
	return cm, true, nil
}

// skipReason says why this reconcile has nothing to do, if it has not.
// Before the first load, and when a dry run of the configuration is due,
// there is always work.
func (r *ConfigCacheReconciler) skipReason(read configMapRead, woken bool, now time.Time) skip {
	cfg := r.snapshots.config()
	switch {
	case cfg == nil, r.rollout.history.fingerprint != cfg.Fingerprint(), r.skew.due(cfg, now):
		return ""
	case !read.rolloutRelevant && read.version == r.loadedVersion && !r.rollout.memory.HoldsNodes():
		return skipUnchanged
	case read.rolloutRelevant && !woken && r.rollout.memory.Echo(read.version, now):
		return skipOwnRecordWrite
	}
	return ""
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
		r.report(ctx, read.cm, cfg, read.rollout)
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
	snap := &Snapshot{Config: cfg.cfg, Gate: plan.Gate, Dropped: dropped, Decided: now}
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

// configEvent is one Event to record on the ConfigMap.
type configEvent struct {
	reason string
	// action names the key: the Event recorder folds Events with the same
	// object, reason and action into one series that keeps only the first
	// note, so each key needs its own action to be heard.
	action   string
	messages []string
	// suffix follows the messages, e.g. what stays in force.
	suffix string
}

// note joins the messages into one Event note within the API's length limit,
// saying how many were left out when they do not all fit.
func (e configEvent) note() string {
	return sloconfig.EventNote(e.messages, e.suffix)
}

// configEvents turns the load reports into Events an operator can act on:
// one about data keys probably meant for this controller but not read (a
// misspelt key, a key under binaryData), then per key one listing every
// error and one listing every warning.
func configEvents(cm *corev1.ConfigMap, cfg *sloconfig.Config, rolloutKey rollout.Key) []configEvent {
	var out []configEvent
	if msgs := sloconfig.DataKeyWarnings(cm.Data, cm.BinaryData); len(msgs) > 0 {
		out = append(out, configEvent{ReasonConfigWarning, "Check keys", msgs, ""})
	}
	for _, k := range sloconfig.ReportByKey(cfg, rolloutKey.Lines()) {
		action := "Load " + string(k.Key)
		if len(k.Errors) > 0 {
			out = append(out, configEvent{ReasonInvalidConfig, action, k.Errors, k.Consequence})
		}
		if len(k.Warnings) > 0 {
			out = append(out, configEvent{ReasonConfigWarning, action, k.Warnings, ""})
		}
	}
	return out
}

// report records an Event and a log line per error and warning, unless the
// same were already reported for this ConfigMap.
func (r *ConfigCacheReconciler) report(
	ctx context.Context, cm *corev1.ConfigMap, cfg *sloconfig.Config, rolloutKey rollout.Key,
) {
	evs := configEvents(cm, cfg, rolloutKey)
	var b strings.Builder
	b.WriteString(string(cm.UID))
	for _, e := range evs {
		b.WriteString("\x00" + e.reason + "\x00" + e.note())
	}
	if b.String() == r.reported {
		return
	}
	r.reported = b.String()

	// Logged at info level: a stack trace would say nothing about a typo in a ConfigMap.
	log := logf.FromContext(ctx)
	for _, e := range evs {
		for _, m := range e.messages {
			log.Info("Configuration problem", "reason", e.reason, "message", m)
		}
		r.recorder.Eventf(cm, nil, corev1.EventTypeWarning, e.reason, e.action, "%s", e.note())
	}
}

// setupWithManager registers the controller; it watches the one ConfigMap and
// is also started once at start-up, so that an absent ConfigMap is loaded (as
// defaults) too. It is woken, too, when a node the rollout held was written
// because its inputs changed, when the health watch saw a change, and when
// a metric query ended.
func (r *ConfigCacheReconciler) setupWithManager(mgr ctrl.Manager) error {
	isConfig := predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetNamespace() == r.key.Namespace && o.GetName() == r.key.Name
	})
	loadAtStart := source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		q.Add(reconcile.Request{NamespacedName: r.key})
		return nil
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named(ConfigCacheController).
		For(&corev1.ConfigMap{}, builder.WithPredicates(isConfig)).
		WatchesRawSource(loadAtStart).
		WatchesRawSource(source.Channel(r.signals.heldNodeWritten, r.wokenBy(&r.heldNodeWritten))).
		WatchesRawSource(source.Channel(r.signals.healthChanged, r.wokenBy(&r.healthChanged))).
		WatchesRawSource(source.Channel(r.signals.metricMeasured, r.wokenBy(&r.metricMeasured))).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1, NewQueue: newQueueOnClock(r.clock)}).
		Complete(r)
}

// wokenBy maps a signal to the one request, noting its cause in cause.
func (r *ConfigCacheReconciler) wokenBy(cause *atomic.Bool) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		cause.Store(true)
		return []reconcile.Request{{NamespacedName: r.key}}
	})
}
