package plugin

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// haltInForce is the health gate's record when the ConfigMap's rollout
// record shows a halt of the configuration in force (nil otherwise: no
// record, an unreadable one, or one about another configuration).
func haltInForce(cm *corev1.ConfigMap) *rollout.HealthRecord {
	rec, err := rollout.ParseRecord(cm.Annotations[rollout.RecordAnnotation])
	if err != nil || rec.Target != sloconfig.Load(cm.Data, nil).Fingerprint() || !rec.Health.Halted() {
		return nil
	}
	return rec.Health
}

// withheldByHalt is an error saying that resume does not roll out the
// ConfigMap's data when the health gate halted it and another
// configuration is in force in its place (a revert, or data applied again
// after its halt); nil otherwise. retry does (RetryHalted).
func withheldByHalt(cm *corev1.ConfigMap, ref ConfigMapRef) error {
	rec, err := rollout.ParseRecord(cm.Annotations[rollout.RecordAnnotation])
	data := sloconfig.Load(cm.Data, nil).Fingerprint()
	if err != nil || rec.Target == data {
		return nil
	}
	if _, halted := rec.HaltOf(data); !halted {
		return nil
	}
	return fmt.Errorf("ConfigMap %s: its data, configuration %s, was halted by the health gate and is not in force; "+
		"resume goes on with the rollout in force, configuration %s, and does not roll the data out: "+
		"kubectl nodeslo rollout retry does", ref, rollout.ShortTarget(data), rollout.ShortTarget(rec.Target))
}

// resumeHalt resumes a rollout the health gate halted. What resumes a halt
// is a change of the rollout key's value that leaves it unpaused
// (docs/rollout.md#health-gates), so "paused" is written so that the text
// changes: true becomes false, an absent one false, a false one is removed;
// should that give back the very text of the halt, the other of the last
// two is written.
func resumeHalt(ctx context.Context, c client.Client, ref ConfigMapRef, cm *corev1.ConfigMap,
	doc map[string]any, halt *rollout.HealthRecord, out io.Writer) error {
	raw := cm.Data[string(sloconfig.KeyRollout)]
	load := rollout.LoadKey(cm.Data)
	if load.Policy == nil {
		return fmt.Errorf("ConfigMap %s: %s is invalid, which holds every rollout; fix it first (kubectl nodeslo validate): "+
			"a valid key changed since the health gate's halt, and not paused, resumes the rollout", ref, sloconfig.KeyRollout)
	}
	tolerated := fmt.Sprintf("the unhealthy nodes known (%d: %s) are tolerated from now on: "+
		"the gate halts again only when more than it allows turn unhealthy beyond them", len(halt.Unhealthy), halt.Summary())
	if halt.MetricFailed() {
		tolerated += "; the metric checks count their failures afresh"
	}
	if halt.ResumedBy(load.Policy, rollout.KeyFingerprint(raw)) {
		printLine(out, fmt.Sprintf("ConfigMap %s: %s changed since the health gate halted the rollout and is not paused, "+
			"so the controller resumes it; nothing written; %s", ref, sloconfig.KeyRollout, tolerated))
		return nil
	}
	setFalse := func() (string, string) {
		doc["paused"] = false
		return rolloutKeyText(doc), `"paused": false in ` + string(sloconfig.KeyRollout)
	}
	remove := func() (string, string) {
		delete(doc, "paused")
		return rolloutKeyText(doc), `"paused" removed from ` + string(sloconfig.KeyRollout)
	}
	edits := []func() (string, string){setFalse, remove}
	if was, present := doc["paused"].(bool); present && !was {
		edits = []func() (string, string){remove, setFalse}
	}
	text, what := edits[0]()
	if rollout.KeyFingerprint(text) == halt.HaltedKey {
		text, what = edits[1]()
	}
	if err := writeRolloutKey(ctx, c, ref, cm, text); err != nil {
		return err
	}
	printLine(out, fmt.Sprintf("ConfigMap %s: the rollout the health gate halted is resumed (%s: a change of the key "+
		"that leaves it unpaused resumes a halt); %s; follow it with: kubectl nodeslo rollout status", ref, what, tolerated))
	return nil
}
