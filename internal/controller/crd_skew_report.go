package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
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

// DefaultCRDRecheckInterval is how often, at most, a decision that leans on
// fields the installed CRD drops is checked again by one dry run, so that an
// upgraded CRD is noticed without a watch on CRDs (which would need a
// permission the manager does not have) and without a write.
const DefaultCRDRecheckInterval = time.Minute

// dryRunUpdate sends spec as an update of stored in a server-side dry run
// (nothing is stored) and learns from the answer which fields the CRD drops.
// missing are the fields stored lacks.
// It reports whether the CRD was seen to store fields it dropped before:
// every node, this one included, is then reconciled again.
func (r *NodeSLOReconciler) dryRunUpdate(
	ctx context.Context, stored *slov1alpha1.NodeSLO, spec *slov1alpha1.NodeSLOSpec, missing []string,
) (bool, error) {
	trial := stored.DeepCopy()
	trial.Spec = *spec.DeepCopy()
	if err := r.client.Update(ctx, trial, client.DryRunAll); err != nil {
		return false, fmt.Errorf("dry-run update of the NodeSLO, to learn which fields the installed CRD drops: %w", err)
	}
	change := r.skew.learn(spec, &trial.Spec, missing)
	r.learned(ctx, change)
	return len(change.regained) > 0, nil
}

// learned acts on what a write or dry run taught: when the installed CRD
// was newly seen to drop a field, one dry run of every field the whole
// configuration sets completes the picture before it is reported, so that
// the Event names every path at once; when it stores fields it dropped
// before, every node is reconciled again to get them.
func (r *NodeSLOReconciler) learned(ctx context.Context, change skewChange) {
	if !change.changed {
		return
	}
	if len(change.regained) == 0 {
		if cfg := r.store.Current(); cfg != nil {
			if dropped, err := crdprobe.ConfigDropped(ctx, r.client, cfg); err != nil {
				logf.FromContext(ctx).Info("Cannot dry-run the whole configuration; reporting the fields seen so far",
					"error", err.Error())
			} else if more := r.skew.learnDropped(dropped); more.changed {
				change.dropped = more.dropped
			}
		}
	}
	r.reportSkew(ctx, change)
}

// probeConfig makes sure the whole configuration cfg was dry-run since what
// was learned about the CRD was last forgotten (at the start, and at each
// configuration change): one dry run, by one worker while the others wait.
// It reports false when the dry run failed; decisions then read stored
// specs whole.
func (r *NodeSLOReconciler) probeConfig(ctx context.Context, cfg *sloconfig.Config) bool {
	fingerprint := cfg.Fingerprint()
	if r.skew.probed(fingerprint) {
		return true
	}
	r.skew.probing.Lock()
	defer r.skew.probing.Unlock()
	if r.skew.probed(fingerprint) {
		return true
	}
	dropped, err := crdprobe.ConfigDropped(ctx, r.client, cfg)
	if err != nil {
		logf.FromContext(ctx).Info("Cannot dry-run the whole configuration; reading stored NodeSLOs whole",
			"error", err.Error())
		return false
	}
	if change := r.skew.learnProbe(fingerprint, dropped); change.changed {
		r.reportSkew(ctx, change)
	}
	return true
}

// reportSkew sets the gauge, logs, and records one Event on the ConfigMap
// for the set of dropped fields (or for the fields the CRD now stores).
func (r *NodeSLOReconciler) reportSkew(ctx context.Context, change skewChange) {
	setDroppedFields(change.dropped)
	log := logf.FromContext(ctx)
	cm := &corev1.ConfigMap{}
	if err := r.client.Get(ctx, r.configKey, cm); err != nil {
		cm = nil // no ConfigMap (or not readable): the log line and the gauge remain
	}
	if len(change.regained) > 0 {
		log.Info("The installed NodeSLO CRD now stores fields it dropped; writing every node once",
			"fields", change.regained)
		if cm != nil {
			r.recorder.Eventf(cm, nil, corev1.EventTypeNormal, ReasonFieldsStoredByCRD, "Write NodeSLOs", "%s",
				sloconfig.EventNote(change.regained,
					"the installed NodeSLO CRD now stores these fields: every node is written once to get them"))
		}
		select {
		case r.reconcileAll <- event.GenericEvent{Object: &corev1.ConfigMap{}}:
		default: // a round over every node is pending already
		}
	}
	if len(change.dropped) == 0 || !r.skew.firstReport(change.dropped) {
		return
	}
	log.Info("The installed NodeSLO CRD drops fields the configuration sets: no node gets them",
		"fields", change.dropped, "fix", sloconfig.CRDUpgradeAdvice)
	if cm != nil {
		// The action counts the fields: the recorder folds Events of one
		// object, reason and action into a series that keeps the first note.
		action := fmt.Sprintf("Write NodeSLOs (%d fields dropped)", len(change.dropped))
		r.recorder.Eventf(cm, nil, corev1.EventTypeWarning, ReasonFieldsDroppedByCRD, action, "%s",
			sloconfig.DroppedFieldsNote(change.dropped))
	}
}

// recheckCRD returns a runnable (leader only) that, while the installed CRD
// is known to drop fields, has one NodeSLO reconciled every recheck
// interval: its reconcile checks by a dry run that the CRD still drops
// them, so that an upgraded CRD brings every node its fields within about
// an interval, with no trigger and no watch on CRDs.
func recheckCRD(c client.Client, skew *crdSkew, reconcileOne chan<- event.GenericEvent) manager.Runnable {
	return manager.RunnableFunc(func(ctx context.Context) error {
		ticker := time.NewTicker(skew.recheckEvery)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-ticker.C:
			}
			if len(skew.Dropped()) == 0 {
				continue
			}
			list := sloconfig.NodeSLOMetadataList()
			if err := c.List(ctx, list, client.Limit(1), client.UnsafeDisableDeepCopy); err != nil || len(list.Items) == 0 {
				continue
			}
			select {
			case reconcileOne <- event.GenericEvent{Object: &slov1alpha1.NodeSLO{
				ObjectMeta: metav1.ObjectMeta{Name: list.Items[0].Name}}}:
			case <-ctx.Done():
				return nil
			}
		}
	})
}
