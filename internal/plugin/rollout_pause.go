package plugin

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// SetPaused pauses or resumes the rollout of the ConfigMap of ref, as
// `kubectl nodeslo rollout pause` and `resume` do: it sets spec.paused on
// the NodeSLORollout of the same namespace and name, and writes nothing
// else. A GitOps tool that owns its spec.strategy or the ConfigMap never
// owns spec.paused, so it never undoes the pause. Without a strategy
// every change reaches every node at once: there is no rollout to pause,
// which is an error that says so. A resume of a rollout the health gate
// halted also names the halt in spec.resume (resumeHalt).
func SetPaused(ctx context.Context, c client.Client, ref ConfigMapRef, paused bool, out io.Writer) error {
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, cm); err != nil {
		return fmt.Errorf("reading ConfigMap %s: %w", ref, err)
	}
	obj, err := getNodeSLORollout(ctx, c, ref)
	if err != nil {
		return err
	}
	spec, where := specOf(obj), nodeSLORolloutName(ref)
	load := rollout.LoadStrategy(&spec, nil)
	if !load.Present {
		if paused || !spec.Paused {
			return fmt.Errorf("%s has no spec.strategy: every change reaches every node at once, "+
				"so there is no rollout to pause or resume", where)
		}
		// A pause left from before the strategy was removed would hold
		// the next rollout once a strategy comes back: lift it.
		if err := writeSpec(ctx, c, ref, specPatch{Paused: new(false)}); err != nil {
			return err
		}
		printLine(out, fmt.Sprintf("spec.paused set to false on %s: it has no spec.strategy, so it held no rollout, "+
			"but it would have paused the next one", where))
		return nil
	}
	if !paused {
		return resume(ctx, c, ref, cm, obj, load, out)
	}
	if spec.Paused {
		printLine(out, fmt.Sprintf("%s: the rollout is paused already (spec.paused: true); nothing written", where))
		return nil
	}
	if err := writeSpec(ctx, c, ref, specPatch{Paused: new(true)}); err != nil {
		return err
	}
	printLine(out, fmt.Sprintf("rollout paused: spec.paused set on %s: "+
		"no further node is reached until kubectl nodeslo rollout resume; follow it with: kubectl nodeslo rollout status",
		where))
	return nil
}

// strategyHolds is what holds the rollout whatever spec.paused says ("":
// nothing): a strategy the controller refuses.
func strategyHolds(load rollout.Key) string {
	if load.Present && load.Policy == nil {
		return "spec.strategy is invalid, which holds every rollout until it is fixed (kubectl describe nodeslorollout " +
			"shows the InvalidStrategy Event)"
	}
	return ""
}

// resume lifts spec.paused, or resumes a halt of the health gate
// (resumeHalt). An invalid strategy (strategyHolds) is not lifted by a
// resume: resume says so, and when spec.paused does not hold the rollout
// either, that is an error.
func resume(ctx context.Context, c client.Client, ref ConfigMapRef, cm *corev1.ConfigMap,
	obj *nodeslov1alpha1.NodeSLORollout, load rollout.Key, out io.Writer) error {
	spec, where := specOf(obj), nodeSLORolloutName(ref)
	// A record that does not parse knows no halt, as the controller, which
	// starts the rollout again, knows none.
	rec, _ := recordOf(obj)
	data := sloconfig.Load(cm.Data, nil).Fingerprint()
	if !spec.Paused {
		// Nothing to unpause: a resume meant for the data halted is a retry.
		if err := withheldByHalt(rec, data, ref); err != nil {
			return err
		}
	}
	if halt := haltInForce(rec, data); halt != nil {
		return resumeHalt(ctx, c, ref, obj, load, halt, out)
	}
	holds := strategyHolds(load)
	if !spec.Paused {
		if holds != "" {
			return fmt.Errorf("%s: %s; spec.paused is not set; nothing written", where, holds)
		}
		printLine(out, fmt.Sprintf("%s: the rollout is resumed already (spec.paused is not set); nothing written", where))
		return nil
	}
	if err := writeSpec(ctx, c, ref, specPatch{Paused: new(false)}); err != nil {
		return err
	}
	if holds != "" {
		printLine(out, fmt.Sprintf("spec.paused set to false on %s; "+
			"the rollout stays held: %s", where, holds))
		return nil
	}
	printLine(out, fmt.Sprintf("rollout resumed: spec.paused set to false on %s: "+
		"the rollout goes on where it stopped; follow it with: kubectl nodeslo rollout status", where))
	return nil
}
