package plugin

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

const retryKey = `{"maxNodesPerStep": 2, "healthGate": {"maxUnhealthyNodes": 1, "onUnhealthy": "revert"}}`

// A retry of the halt of the ConfigMap's data sets spec.retry to name it
// (the data's fingerprint, the halt's time to the second), and writes
// nothing else; asked again, it says so.
func TestRetryNamesTheHaltOfTheData(t *testing.T) {
	c, ref := haltFixture(t, retryKey, nodeslov1alpha1.NodeSLORolloutSpec{})
	before, status := readConfigMap(t, c, ref), readRollout(t, c, ref).Status
	rec, _ := rollout.RecordOf(status.RolloutRecord)
	var out bytes.Buffer
	if err := RetryHalted(context.Background(), c, ref, &out); err != nil {
		t.Fatal(err)
	}
	after := readRollout(t, c, ref)
	retry := after.Spec.Retry
	if retry == nil || retry.Configuration != rec.Target || !sameSecond(retry, haltedAt) ||
		after.Spec.Paused || after.Spec.Resume != nil {
		t.Fatalf("spec after the retry: %+v; the halt is of %s at %s", after.Spec, rec.Target, haltedAt)
	}
	cm := readConfigMap(t, c, ref)
	if cm.ResourceVersion != before.ResourceVersion ||
		!equality.Semantic.DeepEqual(after.Status.RolloutRecord, status.RolloutRecord) {
		t.Errorf("the ConfigMap or the record changed: %+v", cm)
	}
	expectLines(t, out.String(), "spec.retry set on NodeSLORollout koordinator-system/slo-controller-config: "+
		"configuration "+rollout.ShortTarget(rec.Target)+", halted by the health gate at 2026-12-02T18:36:18Z, "+
		"rolls out again as a new rollout, canaries first (the ConfigMap is not written)")
	out.Reset()
	if err := RetryHalted(context.Background(), c, ref, &out); err != nil ||
		!strings.Contains(out.String(), "is asked for already (spec.retry)") {
		t.Errorf("asked twice: %v, %q", err, out.String())
	}
}

// Data the gate halted and that is not in force any more (a revert put the
// previous configuration in its place, or another change came, and the
// data was applied again) is retried the same way; resume refuses it. A
// retry of an earlier halt of the same data is replaced.
func TestRetryOfDataNotInForce(t *testing.T) {
	data := map[string]string{threshold: validThreshold}
	halted := sloconfig.Load(data, nil).Fingerprint()
	rec := rollout.Record{Target: "reverted-to", RevertOf: halted,
		Halts: []rollout.Halt{{Target: halted, Revision: 2, HaltedAt: haltedAt, Revert: true}}}
	earlier := strategySpec(t, retryKey)
	earlier.Retry = haltReference(halted, haltedAt.Add(-time.Hour))
	c, ref := pauseFixture(data, rolloutObject(pauseRef, earlier, recordStatus(rec)))
	var out bytes.Buffer
	err := SetPaused(context.Background(), c, ref, false, &out)
	if err == nil || !strings.Contains(err.Error(), "kubectl nodeslo rollout retry") {
		t.Errorf("resume of data not in force: %v", err)
	}
	if err := RetryHalted(context.Background(), c, ref, &out); err != nil {
		t.Fatal(err)
	}
	if r := readRollout(t, c, ref).Spec.Retry; r == nil || r.Configuration != halted || !sameSecond(r, haltedAt) {
		t.Errorf("spec.retry %+v, want %s at %s", r, halted, haltedAt)
	}
	if !strings.Contains(out.String(), "at revision 2") {
		t.Errorf("output %q", out.String())
	}
}

// Data the gate did not halt has nothing to retry: an error that says so,
// and nothing written, not even a NodeSLORollout created.
func TestRetryWithoutAHalt(t *testing.T) {
	c, ref := pauseFixture(map[string]string{string(sloconfig.KeyRollout): retryKey})
	err := RetryHalted(context.Background(), c, ref, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "is not halted by the health gate: nothing to retry") {
		t.Errorf("got %v", err)
	}
	if readRollout(t, c, ref) != nil {
		t.Error("a NodeSLORollout was created")
	}
	c, ref = pauseFixture(map[string]string{string(sloconfig.KeyRollout): retryKey},
		rolloutObject(pauseRef, nodeslov1alpha1.NodeSLORolloutSpec{}, nodeslov1alpha1.NodeSLORolloutStatus{
			RolloutRecord: &nodeslov1alpha1.RolloutRecord{Target: "x", Started: "yesterday"}}))
	if err := RetryHalted(context.Background(), c, ref, &bytes.Buffer{}); err == nil ||
		!strings.Contains(err.Error(), "status.rolloutRecord does not parse: ") {
		t.Errorf("a record that does not parse: %v", err)
	}
}
