package rollout

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
)

func TestControlsOfTakesTheLegacyRecordOnlyBeforeTheFirstStatus(t *testing.T) {
	halted := metav1.NewTime(time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC))
	const oldRecord, oldRetry = `{"target":"old"}`, `{"fingerprint":"f"}`
	legacy := map[string]string{RecordAnnotation: oldRecord, RetryAnnotation: oldRetry}
	spec := nodeslov1alpha1.NodeSLORolloutSpec{Paused: true,
		Resume: &nodeslov1alpha1.HaltReference{HaltedAt: halted},
		Retry:  &nodeslov1alpha1.HaltReference{Configuration: "f", HaltedAt: halted}}
	written := &nodeslov1alpha1.NodeSLORollout{Spec: spec,
		Status: nodeslov1alpha1.NodeSLORolloutStatus{ObservedGeneration: 1, Record: `{"target":"new"}`}}
	never := &nodeslov1alpha1.NodeSLORollout{}

	for _, tt := range []struct {
		name        string
		obj         *nodeslov1alpha1.NodeSLORollout
		annotations map[string]string
		want        Controls
	}{
		{"no object, no legacy record", nil, nil, Controls{}},
		{"no object: the legacy record and retry", nil, legacy,
			Controls{Record: oldRecord, HasRecord: true, Retry: oldRetry, Legacy: true}},
		{"an object never written: the legacy record", never, legacy,
			Controls{Record: oldRecord, HasRecord: true, Retry: oldRetry, Legacy: true}},
		{"a written status wins over the legacy record; the spec is read", written, legacy,
			Controls{Record: `{"target":"new"}`, HasRecord: true, Paused: true, Resume: halted.UTC(),
				Retry: Retry{Fingerprint: "f", HaltedAt: halted.UTC()}.Encode()}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ControlsOf(tt.obj, tt.annotations); got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestAPIStatusWritesOnlyWhatChanged(t *testing.T) {
	now := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	seen := ObservedBy{Generation: 2, ConfigMapVersion: "7", Revision: 3}
	plan := Plan{Status: &Status{Fingerprint: "f", Phase: PhaseCompleted, Updated: now},
		RecordChange: &RecordChange{Value: `{"target":"f"}`}}
	first := plan.APIStatus(nodeslov1alpha1.NodeSLORolloutStatus{}, Controls{}, seen, now)
	if first.Record != `{"target":"f"}` || first.Revision != 3 || first.ObservedConfigMapVersion != "7" ||
		first.ObservedGeneration != 2 || first.Phase != "Completed" || len(first.Conditions) != 5 || first.Updated == nil {
		t.Fatalf("first status: %+v", first)
	}
	// The same decision a minute later: nothing to write, the time kept.
	again := Plan{Status: &Status{Fingerprint: "f", Phase: PhaseCompleted, Updated: now.Add(time.Minute)}}.
		APIStatus(first, Controls{Record: first.Record, HasRecord: true}, seen, now.Add(time.Minute))
	if StatusChanged(first, again) || !again.Updated.Equal(first.Updated) || again.Record != first.Record {
		t.Errorf("a decision that changes nothing changed the status: %+v", again)
	}
	// A new ConfigMap version alone is written, and so is a record removed.
	seen.ConfigMapVersion = "8"
	gone := Plan{RecordChange: &RecordChange{Remove: true}}.
		APIStatus(first, Controls{Record: first.Record, HasRecord: true}, seen, now.Add(time.Minute))
	if !StatusChanged(first, gone) || gone.Record != "" || gone.Phase != "Completed" ||
		!gone.Updated.Time.Equal(now.Add(time.Minute)) {
		t.Errorf("record removed on a new version: %+v", gone)
	}
}
