package plugin

import (
	"context"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// RetryHalted asks the controller to roll out again the configuration of
// the ConfigMap's data that the health gate halted
// (docs/rollout.md#gitops-argo-cd-flux), as `kubectl nodeslo rollout retry`
// does: it sets rollout.RetryAnnotation to name that halt, and writes
// nothing else. The data stays what its owner (Git) wrote, and an
// annotation is left alone by a server-side apply of the data under
// another field manager, so the retry survives Argo CD's or Flux's next
// sync. The write is a patch at the resourceVersion read.
func RetryHalted(ctx context.Context, c client.Client, ref ConfigMapRef, out io.Writer) error {
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, cm); err != nil {
		return fmt.Errorf("reading ConfigMap %s: %w", ref, err)
	}
	rec, err := rollout.ParseRecord(cm.Annotations[rollout.RecordAnnotation])
	if err != nil {
		return fmt.Errorf("ConfigMap %s: %w", ref, err)
	}
	data := sloconfig.Load(cm.Data, nil).Fingerprint()
	halt, ok := rec.HaltOf(data)
	if !ok {
		return fmt.Errorf("ConfigMap %s: its data, configuration %s, is not halted by the health gate: "+
			"nothing to retry (kubectl nodeslo rollout status)", ref, rollout.ShortTarget(data))
	}
	value := rollout.Retry{Fingerprint: data, HaltedAt: halt.HaltedAt}.Encode()
	what := fmt.Sprintf("configuration %s, halted by the health gate%s at %s", rollout.ShortTarget(data),
		rollout.Withheld{Revision: halt.Revision}.AtRevision(), halt.HaltedAt.UTC().Format(time.RFC3339))
	if cm.Annotations[rollout.RetryAnnotation] == value {
		printLine(out, fmt.Sprintf("ConfigMap %s: a retry of %s is asked for already; "+
			"the controller takes it up at its next decision", ref, what))
		return nil
	}
	before := cm.DeepCopy()
	cm.Annotations[rollout.RetryAnnotation] = value
	patch := client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})
	switch err := c.Patch(ctx, cm, patch, client.FieldOwner(undoFieldManager)); {
	case apierrors.IsConflict(err):
		return fmt.Errorf("ConfigMap %s changed meanwhile; nothing was written, run the command again: %w", ref, err)
	case err != nil:
		return fmt.Errorf("writing annotation %s on ConfigMap %s: %w", rollout.RetryAnnotation, ref, err)
	}
	printLine(out, fmt.Sprintf("ConfigMap %s: %s, rolls out again as a new rollout, canaries first "+
		"(annotation %s set; the data is not written); follow it with: kubectl nodeslo rollout status",
		ref, what, rollout.RetryAnnotation))
	return nil
}
