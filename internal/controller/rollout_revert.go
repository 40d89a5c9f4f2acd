package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// revertFieldManager is the field manager of a health gate's revert: the
// revision it makes names it as who changed the ConfigMap.
const revertFieldManager = "nodeslo-health-gate"

// revert carries out a health gate's revert (docs/rollout.md#health-gates):
// it writes the data of the revision before the one halted back into the
// ConfigMap, as `kubectl nodeslo rollout undo` does. The ConfigMap then
// holds what is in force, and the change rolls out under the rollout key
// like any other: the reached nodes are pending again, canaries first.
// Without an earlier revision the rollout stays halted, and an Event says
// so; so does a revert that halts in turn: it is not reverted again, so
// that two configurations that both hurt never take turns on the nodes.
func (d *rolloutDriver) revert(ctx context.Context, read configMapRead, want *rollout.Revert) error {
	if want == nil || !read.exists || d.revertRefused == want.Target {
		// A refusal stands for as long as the configuration is in force.
		return nil
	}
	revisions, err := d.listRevisions(ctx)
	if err != nil {
		return err
	}
	halted := rollout.ShortTarget(want.Target)
	previous, why := rollout.RevertTo(revisions, want.Target, revertFieldManager)
	if why != "" {
		d.revertRefused = want.Target
		d.recorder.Eventf(read.cm, nil, corev1.EventTypeWarning, rollout.ReasonHalted, "Revert "+halted,
			"configuration %s is not reverted: %s; the rollout stays halted (resume it, or change the ConfigMap)",
			halted, why)
		return nil
	}
	cm := read.cm
	before := cm.DeepCopy()
	cm.Data = rollout.UndoData(cm.Data, previous)
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[rollout.ChangeCauseAnnotation] = fmt.Sprintf(
		"health gate of %s: configuration %s halted (%s); reverted to revision %d",
		read.cm.Name, halted, want.Summary, previous.Number)
	patch := client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})
	if err := d.client.Patch(ctx, cm, patch, client.FieldOwner(revertFieldManager)); err != nil {
		return fmt.Errorf("reverting ConfigMap %s to revision %d after the health gate halted %s: %w",
			d.key, previous.Number, halted, err)
	}
	reverts.Inc()
	logf.FromContext(ctx).Info("Health gate reverted the configuration", "halted", halted, "toRevision", previous.Number)
	d.recorder.Eventf(read.cm, nil, corev1.EventTypeWarning, rollout.ReasonHalted, "Revert "+halted,
		"configuration %s halted by its health gate (%s): revision %d written back; "+
			"it rolls out to the reached nodes in steps", halted, want.Summary, previous.Number)
	return nil
}
