package controller

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

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
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Event reasons on the ConfigMap about its keys (sloconfig.KeyEvents).
const (
	ReasonInvalidConfig = sloconfig.ReasonInvalidConfig
	ReasonConfigWarning = sloconfig.ReasonConfigWarning
)

// ConfigCacheReconciler is the config-cache controller: it loads the
// slo-controller-config ConfigMap when it changes, validates it, reports
// its problems as Events on it, and hands the configuration its data
// loads into to the rollout controller (rollout_controller.go), which
// decides what goes in force and publishes it. It writes no ConfigMap.
//
// It runs with one worker and reconciles one name, so its fields need no lock.
type ConfigCacheReconciler struct {
	// reader reads the ConfigMap from the cache.
	reader   client.Reader
	key      types.NamespacedName
	recorder events.EventRecorder
	// configs receives each load; loaded wakes the rollout controller.
	configs *atomic.Pointer[loadedConfigMap]
	loaded  chan<- event.GenericEvent

	// reported identifies the Events last emitted, so that none is repeated
	// until what there is to say changes.
	reported string
}

// Reconcile loads the ConfigMap when its resourceVersion differs from the
// last load's, or nothing was loaded yet (a periodic resync does no work),
// and hands the load over. A deleted ConfigMap means defaults, whatever
// was loaded before: the result depends on the cluster as it is, not on
// history.
func (r *ConfigCacheReconciler) Reconcile(ctx context.Context, _ reconcile.Request) (ctrl.Result, error) {
	cm, exists, err := r.readConfigMap(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	last := r.configs.Load()
	version := cm.ResourceVersion // "" when there is none
	if last != nil && last.version == version {
		return ctrl.Result{}, nil
	}
	var data map[string]string
	var base *sloconfig.Config
	if exists {
		data = cm.Data
		if data == nil {
			data = map[string]string{}
		}
		if last != nil {
			// Keys that are bad now keep what they held (docs/behaviour.md).
			base = last.cfg
		}
	}
	cfg := sloconfig.Load(data, base)
	recordValidity(cfg)
	if exists {
		r.report(ctx, cm, cfg)
	} else {
		r.reported = ""
	}
	r.configs.Store(&loadedConfigMap{cm: cm, exists: exists, version: version, cfg: cfg})
	trySignal(r.loaded, event.GenericEvent{Object: cm}) // the rollout controller takes the latest load
	return ctrl.Result{}, nil
}

// readConfigMap reads the ConfigMap from the cache; exists is false when
// there is none (an empty ConfigMap of its name, without a
// resourceVersion, is then returned).
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

// setupWithManager registers the controller; it watches the one
// ConfigMap, and is also started once at start-up, so that an absent
// ConfigMap is loaded (as defaults) too.
func (r *ConfigCacheReconciler) setupWithManager(mgr ctrl.Manager) error {
	loadAtStart := source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		q.Add(reconcile.Request{NamespacedName: r.key})
		return nil
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named(ConfigCacheController).
		For(&corev1.ConfigMap{}, builder.WithPredicates(named(r.key))).
		WatchesRawSource(loadAtStart).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1, RateLimiter: retryBackoff(maxRetryBackoff)}).
		Complete(r)
}
