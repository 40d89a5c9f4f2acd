package plugin

import (
	"bytes"
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

const retryKey = `{"maxNodesPerStep": 2, "healthGate": {"maxUnhealthyNodes": 1, "onUnhealthy": "revert"}}`

// A retry of the halt of the ConfigMap's data sets the annotation that
// names it, and writes nothing else; asked again, it says so.
func TestRetryNamesTheHaltOfTheData(t *testing.T) {
	c, ref := haltFixture(t, retryKey, retryKey)
	before := readConfigMap(t, c, ref)
	rec, _ := rollout.ParseRecord(before.Annotations[rollout.RecordAnnotation])
	var out bytes.Buffer
	if err := RetryHalted(context.Background(), c, ref, &out); err != nil {
		t.Fatal(err)
	}
	after := readConfigMap(t, c, ref)
	retry, err := rollout.ParseRetry(after.Annotations[rollout.RetryAnnotation])
	if err != nil || retry.Fingerprint != rec.Target || !retry.HaltedAt.Equal(rec.Health.HaltedAt) {
		t.Fatalf("the retry annotation %q names %+v (%v); the halt is of %s at %s",
			after.Annotations[rollout.RetryAnnotation], retry, err, rec.Target, rec.Health.HaltedAt)
	}
	if !maps.Equal(after.Data, before.Data) || after.Annotations[rollout.RecordAnnotation] != rec.Encode() {
		t.Errorf("the data or the record changed: %v", after.Data)
	}
	if !strings.Contains(out.String(), "rolls out again as a new rollout, canaries first") {
		t.Errorf("output %q", out.String())
	}
	out.Reset()
	if err := RetryHalted(context.Background(), c, ref, &out); err != nil || !strings.Contains(out.String(), "already") {
		t.Errorf("asked twice: %v, %q", err, out.String())
	}
}

// Data the gate halted and that is not in force any more (a revert put the
// previous configuration in its place, or another change came, and the
// data was applied again) is retried the same way; resume refuses it.
func TestRetryOfDataNotInForce(t *testing.T) {
	data := map[string]string{string(sloconfig.KeyRollout): retryKey, threshold: validThreshold}
	c, ref := pauseFixture(data)
	halted := sloconfig.Load(data, nil).Fingerprint()
	haltedAt := time.Date(2026, 12, 2, 18, 36, 18, 0, time.UTC)
	setRecord(t, c, ref, rollout.Record{Target: "reverted-to", RevertOf: halted,
		Halts: []rollout.Halt{{Target: halted, Revision: 2, HaltedAt: haltedAt, Revert: true}}})
	var out bytes.Buffer
	err := SetPaused(context.Background(), c, ref, false, &out)
	if err == nil || !strings.Contains(err.Error(), "kubectl nodeslo rollout retry") {
		t.Errorf("resume of data not in force: %v", err)
	}
	if err := RetryHalted(context.Background(), c, ref, &out); err != nil {
		t.Fatal(err)
	}
	want := rollout.Retry{Fingerprint: halted, HaltedAt: haltedAt}.Encode()
	if got := readConfigMap(t, c, ref).Annotations[rollout.RetryAnnotation]; got != want {
		t.Errorf("annotation %q, want %q", got, want)
	}
	if !strings.Contains(out.String(), "at revision 2") {
		t.Errorf("output %q", out.String())
	}
}

// Data the gate did not halt has nothing to retry: an error that says so.
func TestRetryWithoutAHalt(t *testing.T) {
	c, ref := pauseFixture(map[string]string{string(sloconfig.KeyRollout): retryKey})
	err := RetryHalted(context.Background(), c, ref, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "is not halted by the health gate: nothing to retry") {
		t.Errorf("got %v", err)
	}
	if _, ok := readConfigMap(t, c, ref).Annotations[rollout.RetryAnnotation]; ok {
		t.Error("an annotation was written")
	}
}

// While the ConfigMap's data is withheld, rollout status is about it (the
// controller took it up), says it is not in force, why and how to retry,
// and is not done even when the configuration in force completed.
func TestRolloutStatusSaysTheDataIsNotInForce(t *testing.T) {
	good, bad := statusData(50, false), statusData(40, false)
	s := withheldStatus(good, bad)
	s.Withheld.Reverted = true
	h := History{Revisions: []rollout.Revision{inForce(3, good, &s)}}
	st, err := NewRolloutStatus(statusRef, bad, true, h)
	if err != nil {
		t.Fatal(err)
	}
	if !st.TakenUp() || st.Done() {
		t.Errorf("taken up %t, done %t", st.TakenUp(), st.Done())
	}
	var out bytes.Buffer
	st.Write(&out)
	expectLines(t, out.String(),
		"not in force: the ConfigMap's data, configuration "+rollout.ShortTarget(s.Withheld.Fingerprint)+
			", halted by the health gate at revision 2 at 2026-11-30T17:00:00Z (worker-0 (Ready=False since 17:00:00)); "+
			"the previous revision's configuration, "+rollout.ShortTarget(s.Fingerprint)+
			", is in force in its place (onUnhealthy: revert); no NodeSLO is written for it, however often it is applied again",
		"retry: kubectl nodeslo rollout retry (rolls it out again, canaries first); or change the ConfigMap")
}
