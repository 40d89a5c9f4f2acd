package plugin

import (
	"context"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// RetryHalted asks the controller to roll out again the configuration of
// the ConfigMap's data that the health gate halted
// (docs/rollout.md#gitops-argo-cd-flux), as `kubectl nodeslo rollout retry`
// does: it sets spec.retry on the NodeSLORollout of the ConfigMap to name
// that halt (the data's fingerprint and the halt's time, which the
// controller compares to the second), and writes nothing else. The data
// stays what its owner (Git) wrote, and a GitOps tool that syncs the
// ConfigMap never sees the NodeSLORollout's spec, so the retry survives
// Argo CD's or Flux's next sync. The halt is read from the controller's
// rollout record, status.rolloutRecord.
func RetryHalted(ctx context.Context, c client.Client, ref ConfigMapRef, out io.Writer) error {
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, cm); err != nil {
		return fmt.Errorf("reading ConfigMap %s: %w", ref, err)
	}
	obj, err := getNodeSLORollout(ctx, c, ref)
	if err != nil {
		return err
	}
	rec, err := recordOf(obj)
	if err != nil {
		return fmt.Errorf("%s: %w", nodeSLORolloutName(ref), err)
	}
	data := sloconfig.Load(cm.Data, nil).Fingerprint()
	halt, ok := rec.HaltOf(data)
	if !ok {
		return fmt.Errorf("ConfigMap %s: its data, configuration %s, is not halted by the health gate: "+
			"nothing to retry (kubectl nodeslo rollout status)", ref, rollout.ShortTarget(data))
	}
	where := nodeSLORolloutName(ref)
	what := fmt.Sprintf("configuration %s, halted by the health gate%s at %s", rollout.ShortTarget(data),
		rollout.AtRevision(halt.Revision), halt.HaltedAt.UTC().Format(time.RFC3339))
	if r := obj.Spec.Retry; r != nil && r.Configuration == data && sameSecond(r, halt.HaltedAt) {
		printLine(out, fmt.Sprintf("%s: a retry of %s is asked for already (spec.retry); "+
			"the controller takes it up at its next decision; nothing written", where, what))
		return nil
	}
	if err := writeSpec(ctx, c, ref, specPatch{Retry: haltReference(data, halt.HaltedAt)}); err != nil {
		return err
	}
	printLine(out, fmt.Sprintf("spec.retry set on %s: %s, rolls out again as a new rollout, canaries first "+
		"(the ConfigMap is not written); follow it with: kubectl nodeslo rollout status", where, what))
	return nil
}
