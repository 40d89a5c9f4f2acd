package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/nodeslo/nodeslo-controller/internal/crdprobe"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Event reasons on the ConfigMap about CRD version skew
// (docs/behaviour.md#crd-version-skew).
const (
	// ReasonFieldsDroppedByCRD: the installed NodeSLO CRD drops fields the
	// configuration sets; the note names the key, the paths and the fix.
	ReasonFieldsDroppedByCRD = "FieldsDroppedByCRD"
	// ReasonFieldsStoredByCRD: the CRD was upgraded and now stores fields it
	// dropped; every node is written once to get them.
	ReasonFieldsStoredByCRD = "FieldsStoredByCRD"
)

// DefaultCRDRecheckInterval is how often, while the installed CRD drops
// fields, the configuration is dry-run again, so that an upgraded CRD is
// noticed without a write even if the watch of the CRD (crd_watch.go)
// missed its change.
const DefaultCRDRecheckInterval = time.Minute

// crdSkew is what the rollout controller knows of the fields of the
// configuration in force that the installed NodeSLO CRD drops
// (docs/behaviour.md#crd-version-skew). It finds them by one server-side
// dry run of the whole configuration (crdprobe.ConfigDropped, which stores
// nothing) per configuration, and again every recheck interval while any
// are dropped; the answer is published in the Snapshot, so that no NodeSLO
// reconcile ever waits for a dry run. A change of the CRD itself
// (crd_watch.go) makes a dry run due at once, whatever was found before: a
// CRD replaced by an older one under a running manager would otherwise go
// unnoticed until the configuration changed. Only the rollout controller's
// one worker uses it, so it needs no lock but for changed, which the
// watch sets.
type crdSkew struct {
	client       client.Client
	recorder     events.EventRecorder
	recheckEvery time.Duration

	// fingerprint is the configuration last dry-run ("": none yet), at
	// probedAt; dropped is what that showed.
	fingerprint string
	probedAt    time.Time
	dropped     []string
	// retryAt is when a dry run that failed is tried again (zero: none failed).
	retryAt time.Time
	// reported is the set last reported by an Event ("\x00"-joined), so
	// that the same set found again (a restart of the rollout, a change
	// back) is not reported twice.
	reported string
	// changed is set when the NodeSLO CRD changed since the last dry run.
	changed atomic.Bool
	// confirmAt is when the dry run after a change of the CRD is made once
	// more (zero: none due): the apiserver serves a changed CRD's schema a
	// moment after the change is seen, so the first may still see the old one.
	confirmAt time.Time
}

// crdSettle is how long after a change of the NodeSLO CRD its dry run is
// made once more (confirmAt).
const crdSettle = 2 * time.Second

func newCRDSkew(c client.Client, recorder events.EventRecorder, recheckEvery time.Duration) *crdSkew {
	return &crdSkew{client: c, recorder: recorder, recheckEvery: recheckEvery}
}

// crdChanged makes a dry run due at once: the NodeSLO CRD changed.
func (s *crdSkew) crdChanged() { s.changed.Store(true) }

// due reports whether cfg must be dry-run now: the NodeSLO CRD changed, it
// was not yet (and no failed dry run waits to be tried again), or the
// recheck of the fields found dropped is due.
func (s *crdSkew) due(cfg *sloconfig.Config, now time.Time) bool {
	if s.changed.Load() {
		return true
	}
	if now.Before(s.retryAt) {
		return false
	}
	next := s.nextAt()
	return s.fingerprint != cfg.Fingerprint() || (!next.IsZero() && !now.Before(next))
}

// nextAt is when the next dry run is due without a configuration change:
// the retry of one that failed, the second after a change of the CRD, or
// the recheck of dropped fields (zero: none).
func (s *crdSkew) nextAt() time.Time {
	switch {
	case !s.retryAt.IsZero():
		return s.retryAt
	case !s.confirmAt.IsZero():
		return s.confirmAt
	case len(s.dropped) > 0:
		return s.probedAt.Add(s.recheckEvery)
	}
	return time.Time{}
}

// droppedFor returns the fields of cfg the installed CRD drops, dry-running
// cfg when due, and reports what changed on cm (nil: no ConfigMap to
// report on). When the dry run fails, it returns what it knew (nothing,
// for a configuration it never dry-ran) and the error; the caller
// publishes that and tries again later.
func (s *crdSkew) droppedFor(
	ctx context.Context, cfg *sloconfig.Config, cm *corev1.ConfigMap, now time.Time,
) ([]string, error) {
	if !s.due(cfg, now) {
		return s.dropped, nil
	}
	sameConfig := s.fingerprint == cfg.Fingerprint()
	// Cleared before the dry run: a change the dry run may not see yet
	// makes another one due.
	if s.changed.Swap(false) {
		logf.FromContext(ctx).Info("The NodeSLO CRD changed; dry-running the configuration again",
			"crd", sloconfig.NodeSLOCRDName)
		s.confirmAt = now.Add(crdSettle)
	} else if !s.confirmAt.IsZero() && !now.Before(s.confirmAt) {
		s.confirmAt = time.Time{}
	}
	dropped, err := crdprobe.ConfigDropped(ctx, s.client, cfg)
	if err != nil {
		s.retryAt = now.Add(s.recheckEvery)
		if !sameConfig {
			s.dropped = nil
		}
		return s.dropped, fmt.Errorf("dry-running the configuration to find the fields the NodeSLO CRD drops: %w", err)
	}
	if len(dropped) == 0 {
		dropped = nil
	}
	var regained []string
	if sameConfig {
		// On a clone: callers were handed s.dropped.
		regained = slices.DeleteFunc(slices.Clone(s.dropped), func(p string) bool { return slices.Contains(dropped, p) })
	}
	s.fingerprint, s.probedAt, s.dropped, s.retryAt = cfg.Fingerprint(), now, dropped, time.Time{}
	s.report(ctx, cm, regained)
	return dropped, nil
}

// report sets the gauge, and logs and records an Event on cm when the CRD
// now stores fields it dropped (regained) or drops a set not reported yet.
func (s *crdSkew) report(ctx context.Context, cm *corev1.ConfigMap, regained []string) {
	setDroppedFields(s.dropped)
	log := logf.FromContext(ctx)
	if len(regained) > 0 {
		log.Info("The installed NodeSLO CRD now stores fields it dropped; writing every node once", "fields", regained)
		if cm != nil {
			s.recorder.Eventf(cm, nil, corev1.EventTypeNormal, ReasonFieldsStoredByCRD, "Write NodeSLOs", "%s",
				sloconfig.EventNote(regained,
					"the installed NodeSLO CRD now stores these fields: every node is written once to get them"))
		}
	}
	key := strings.Join(s.dropped, "\x00")
	if len(s.dropped) == 0 || key == s.reported {
		return
	}
	s.reported = key
	log.Info("The installed NodeSLO CRD drops fields the configuration sets: no node gets them",
		"fields", s.dropped, "fix", sloconfig.CRDUpgradeAdvice)
	if cm != nil {
		// The action counts the fields: the recorder folds Events of one
		// object, reason and action into a series that keeps the first note.
		action := fmt.Sprintf("Write NodeSLOs (%d fields dropped)", len(s.dropped))
		s.recorder.Eventf(cm, nil, corev1.EventTypeWarning, ReasonFieldsDroppedByCRD, action, "%s",
			sloconfig.DroppedFieldsNote(s.dropped))
	}
}
