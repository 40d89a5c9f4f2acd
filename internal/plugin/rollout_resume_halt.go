package plugin

import (
	"context"
	"fmt"
	"io"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// haltInForce is the health gate's record when the controller's rollout
// record (status.rolloutRecord of the NodeSLORollout) shows a halt of data, the
// configuration of the ConfigMap's data, in force (nil otherwise: no
// record, or one about another configuration).
func haltInForce(rec rollout.Record, data string) *rollout.HealthRecord {
	if rec.Target != data || !rec.Health.Halted() {
		return nil
	}
	return rec.Health
}

// withheldByHalt is an error saying that resume does not roll out the
// ConfigMap's data (configuration data) when the health gate halted it and
// another configuration is in force in its place (a revert, or data applied
// again after its halt); nil otherwise. retry does (RetryHalted).
func withheldByHalt(rec rollout.Record, data string, ref ConfigMapRef) error {
	if rec.Target == "" || rec.Target == data {
		return nil
	}
	if _, halted := rec.HaltOf(data); !halted {
		return nil
	}
	return fmt.Errorf("ConfigMap %s: its data, configuration %s, was halted by the health gate and is not in force; "+
		"resume goes on with the rollout in force, configuration %s, and does not roll the data out: "+
		"kubectl nodeslo rollout retry does", ref, rollout.ShortTarget(data), rollout.ShortTarget(rec.Target))
}

// resumeHalt resumes a rollout the health gate halted: it sets spec.resume
// to the halt's time (status.health.haltedAt, else the record's), which the
// controller compares to the second with the halt it recorded, so that it
// resumes this halt and never a later one, and lifts spec.paused. The
// unhealthy nodes known are tolerated from then on. An invalid
// spec.strategy holds every rollout: the halt is not resumed under it.
func resumeHalt(ctx context.Context, c client.Client, ref ConfigMapRef, obj *nodeslov1alpha1.NodeSLORollout,
	load rollout.Key, halt *rollout.HealthRecord, out io.Writer) error {
	where := nodeSLORolloutName(ref)
	if load.Policy == nil {
		return fmt.Errorf("%s: spec.strategy is invalid, which holds every rollout; fix it first "+
			"(kubectl describe nodeslorollout shows the InvalidStrategy Event): "+
			"the halt is resumed under a valid strategy; nothing written", where)
	}
	haltedAt := halt.HaltedAt
	if h := obj.Status.Health; h != nil && h.HaltedAt != nil {
		haltedAt = h.HaltedAt.Time
	}
	at := haltedAt.UTC().Format(time.RFC3339)
	tolerated := fmt.Sprintf("the unhealthy nodes known (%d: %s) are tolerated from now on: "+
		"the gate halts again only when more than it allows turn unhealthy beyond them", len(halt.Unhealthy), halt.Summary())
	if halt.MetricFailed() {
		tolerated += "; the metric checks count their failures afresh"
	}
	holds := ""
	if h := strategyHolds(load); h != "" {
		holds = "; the rollout stays held: " + h
	}
	if sameSecond(obj.Spec.Resume, haltedAt) && !obj.Spec.Paused {
		printLine(out, fmt.Sprintf("%s: a resume of the health gate's halt at %s is asked for already (spec.resume); "+
			"the controller takes it up at its next decision; nothing written%s", where, at, holds))
		return nil
	}
	resume := specPatch{Paused: new(false), Resume: haltReference("", haltedAt)}
	if err := writeSpec(ctx, c, ref, resume); err != nil {
		return err
	}
	printLine(out, fmt.Sprintf("the rollout the health gate halted is resumed: spec.resume set on %s to the halt at %s, "+
		"spec.paused false (the ConfigMap is not written); %s%s; follow it with: kubectl nodeslo rollout status",
		where, at, tolerated, holds))
	return nil
}
