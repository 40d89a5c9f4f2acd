package rollout

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
)

func TestControlsOfReadsTheSpecAndTheRecord(t *testing.T) {
	halted := metav1.NewTime(time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC))
	spec := nodeslov1alpha1.NodeSLORolloutSpec{Paused: true,
		Resume: &nodeslov1alpha1.HaltReference{HaltedAt: halted},
		Retry:  &nodeslov1alpha1.HaltReference{Configuration: "f", HaltedAt: halted}}
	written := &nodeslov1alpha1.NodeSLORollout{Spec: spec,
		Status: nodeslov1alpha1.NodeSLORolloutStatus{ObservedGeneration: 1,
			RolloutRecord: &nodeslov1alpha1.RolloutRecord{Target: "new", Started: "2026-12-04T09:00:00Z"}}}

	for _, tt := range []struct {
		name string
		obj  *nodeslov1alpha1.NodeSLORollout
		want Controls
	}{
		{"no object", nil, Controls{}},
		{"an object never written", &nodeslov1alpha1.NodeSLORollout{}, Controls{}},
		{"the record of its status and the controls of its spec", written,
			Controls{Record: `{"target":"new","started":"2026-12-04T09:00:00Z","pending":0,"canaries":0,"steps":0}`,
				HasRecord: true, Resume: halted.UTC(),
				Retry: Retry{Fingerprint: "f", HaltedAt: halted.UTC()}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ControlsOf(tt.obj); got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
