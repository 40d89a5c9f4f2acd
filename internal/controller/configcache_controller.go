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
// slo-controller-config ConfigMap, publishes the result in the Store and,
// when the effective configuration changed, signals the NodeSLO controller
// to reconcile every node.
//
// It runs with one worker and reconciles one name, so its fields need no lock.
type ConfigCacheReconciler struct {
	reader   client.Reader
	key      types.NamespacedName
	store    *Store
	recorder events.EventRecorder
	// configChanged carries one event per change of the effective
	// configuration; its buffer of one coalesces changes not yet consumed.
	configChanged chan<- event.GenericEvent

	// loadedVersion is the resourceVersion of the ConfigMap last loaded ("" = absent),
	// so that a periodic resync of an unchanged ConfigMap does no work.
	loadedVersion string
	// reported identifies the Events last emitted, so that none is repeated
	// until what there is to say changes.
	reported string

	// apiReader reads the ConfigMap past the cache when it carries a rollout;
	// client lists Nodes and NodeSLOs from the cache and writes the record.
	apiReader client.Reader
	client    client.Client
	// reached carries the nodes a rollout step reached to the NodeSLO controller.
	reached chan<- event.GenericEvent
	rollout rolloutMemory
	// released is set when the NodeSLO controller wrote a node the gate
	// held (its inputs changed): the next reconcile decides again.
	released atomic.Bool
}

// Reconcile loads the ConfigMap (absent = all defaults) and publishes it,
// with the gate of a staged rollout when the ConfigMap asks for one.
func (r *ConfigCacheReconciler) Reconcile(ctx context.Context, _ reconcile.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	cm, exists, err := r.readConfigMap(ctx, r.reader)
	if err != nil {
		return ctrl.Result{}, err
	}
	relevant := exists && rolloutRelevant(cm)
	if relevant {
		// The rollout record must not come from a cache that may not have
		// seen our last write yet: a stale record could repeat a step.
		if cm, exists, err = r.readConfigMap(ctx, r.apiReader); err != nil {
			return ctrl.Result{}, err
		}
		relevant = exists && rolloutRelevant(cm)
	}
	version := ""
	if exists {
		version = cm.ResourceVersion
	}
	old := r.store.Current()
	if old != nil && version == r.loadedVersion && !relevant && r.rollout.gate == nil {
		return ctrl.Result{}, nil
	}
	if old != nil && relevant && !r.released.Swap(false) && r.rollout.echo(version, time.Now()) {
		return requeueAt(r.rollout.nextAt), nil
	}

	cfg, changed := old, false
	if old == nil || version != r.loadedVersion {
		// A deleted ConfigMap means defaults, whatever was in force before:
		// the result depends on the cluster as it is, not on history.
		var data map[string]string
		base := old
		if exists {
			data = cm.Data
			if data == nil {
				data = map[string]string{}
			}
		} else {
			base = nil
		}
		cfg = sloconfig.Load(data, base)
		r.loadedVersion = version
		changed = old == nil || old.Fingerprint() != cfg.Fingerprint()
		recordConfig(cfg, changed)
		if exists {
			r.report(ctx, cm, cfg)
		} else {
			r.reported = ""
		}
	}

	var gate *Gate
	var next time.Time
	var release []string
	var rolloutErr error
	if relevant {
		gate, next, release, rolloutErr = r.decideRollout(ctx, cm, cfg)
	} else if r.rollout.gate != nil {
		release = r.rollout.gate.names()
		recordRollout(rolloutFigures{})
		r.rollout = rolloutMemory{}
	}
	r.store.PublishGated(cfg, gate)

	if changed {
		log.Info("Configuration in force changed; reconciling every node",
			"configMapExists", exists, "fingerprint", cfg.Fingerprint(), "nodesHeld", gate.Len())
		select {
		case r.configChanged <- event.GenericEvent{Object: cm}:
		default: // a signal is already pending; it will reconcile every node too
		}
	} else {
		// Nodes a step reached, or released from a gate now gone.
		r.enqueueReached(ctx, release)
	}
	if rolloutErr != nil {
		return ctrl.Result{}, rolloutErr
	}
	return requeueAt(next), nil
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
		return &corev1.ConfigMap{}, false, nil
	}
	return cm, true, nil
}

// requeueAt asks to reconcile again at t (zero: no timed reconcile).
func requeueAt(t time.Time) ctrl.Result {
	if t.IsZero() {
		return ctrl.Result{}
	}
	return ctrl.Result{RequeueAfter: max(time.Until(t), minRequeue)}
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
	return joinNote(e.messages, e.suffix)
}

// configEvents turns the load reports into Events an operator can act on:
// one about data keys probably meant for this controller but not read (a
// misspelt key, a key under binaryData), then per key one listing every
// error and one listing every warning.
func configEvents(cm *corev1.ConfigMap, cfg *sloconfig.Config) []configEvent {
	var out []configEvent
	if msgs := sloconfig.DataKeyWarnings(cm.Data, cm.BinaryData); len(msgs) > 0 {
		out = append(out, configEvent{ReasonConfigWarning, "Check keys", msgs, ""})
	}
	for _, r := range cfg.Reports() {
		action := "Load " + string(r.Key)
		if msgs := r.Messages(); len(msgs) > 0 {
			out = append(out, configEvent{ReasonInvalidConfig, action, msgs, consequence(r.State)})
		}
		if msgs := r.WarningMessages(); len(msgs) > 0 {
			out = append(out, configEvent{ReasonConfigWarning, action, msgs, ""})
		}
	}
	rollout := sloconfig.LoadRollout(cm.Data)
	action := "Load " + string(sloconfig.KeyRollout)
	if msgs := rollout.Messages(); len(msgs) > 0 {
		out = append(out, configEvent{ReasonInvalidConfig, action, msgs,
			"the key is rejected and every rollout is paused until it is fixed"})
	}
	if msgs := rollout.WarningMessages(); len(msgs) > 0 {
		out = append(out, configEvent{ReasonConfigWarning, action, msgs, ""})
	}
	return out
}

// consequence says what a rejected key means for the NodeSLOs.
func consequence(state sloconfig.SectionState) string {
	switch state {
	case sloconfig.StateLastGood:
		return "the key is rejected as a whole and its last good value stays in force"
	case sloconfig.StateFrozen:
		return "the key is rejected as a whole; existing NodeSLOs keep their current value of this section " +
			"and new nodes get the defaults"
	default:
		return "the key is rejected"
	}
}

// report records an Event and a log line per error and warning, unless the
// same were already reported for this ConfigMap.
func (r *ConfigCacheReconciler) report(ctx context.Context, cm *corev1.ConfigMap, cfg *sloconfig.Config) {
	evs := configEvents(cm, cfg)
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
// defaults) too. released wakes it when a node a rollout held was written
// because its inputs changed.
func (r *ConfigCacheReconciler) setupWithManager(mgr ctrl.Manager, released <-chan event.GenericEvent) error {
	isConfig := predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetNamespace() == r.key.Namespace && o.GetName() == r.key.Name
	})
	loadAtStart := source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		q.Add(reconcile.Request{NamespacedName: r.key})
		return nil
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("config-cache").
		For(&corev1.ConfigMap{}, builder.WithPredicates(isConfig)).
		WatchesRawSource(loadAtStart).
		WatchesRawSource(source.Channel(released, handler.EnqueueRequestsFromMapFunc(
			func(context.Context, client.Object) []reconcile.Request {
				r.released.Store(true)
				return []reconcile.Request{{NamespacedName: r.key}}
			}))).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1}).
		Complete(r)
}
