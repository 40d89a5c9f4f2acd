package rollout

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// A step size changed mid-rollout sizes the steps to come only: the steps
// taken keep what they reached, and the next one reaches one batch of the
// new size, never a catch-up
// (docs/rollout-design.md#decisions-where-the-specification-was-silent, no
// catch-up; simulator seeds 64, 208, 238).
func TestScheduleAStepSizeChangedMidRolloutSizesOnlyTheStepsToCome(t *testing.T) {
	policy := func(size int) *Policy {
		return &Policy{MaxNodesPerStep: intstr.FromInt32(int32(size)), StepInterval: time.Second}
	}
	// 13 pending, 1 canary: the canary step and two batches of 1 taken.
	rec := Record{Pending: 13, Canaries: 1, Steps: 3}
	rec.Batched = NewSchedule(policy(1), rec).BatchQuota(rec.Steps)
	if rec.Batched != 2 {
		t.Fatalf("two batches of 1 reach %d nodes", rec.Batched)
	}
	raised := NewSchedule(policy(3), rec)
	if got := raised.BatchQuota(rec.Steps); got != 2 {
		t.Errorf("raised to 3: the steps taken reach %d nodes, want the 2 they reached", got)
	}
	if got := raised.BatchQuota(rec.Steps + 1); got != 5 {
		t.Errorf("raised to 3: the next step reaches up to %d nodes, want 2 + 3", got)
	}
	if got := raised.Steps(); got != 3+4 { // 10 left: 3, 3, 3, 1
		t.Errorf("raised to 3: %d steps in all, want 7", got)
	}
	lowered := NewSchedule(policy(1), Record{Pending: 13, Canaries: 1, Steps: 3, Batched: 6})
	if got := lowered.BatchQuota(4); got != 7 {
		t.Errorf("lowered to 1 after 6 reached: the next step reaches up to %d, want 7", got)
	}
	earlier := NewSchedule(policy(3), Record{Pending: 13, Canaries: 1, Steps: 3})
	if got := earlier.BatchQuota(3); got != 6 {
		t.Errorf("a record of an earlier version (no batched count): %d, want 2 batches of 3", got)
	}
}
