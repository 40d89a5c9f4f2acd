package rollout

import (
	"time"
)

// Schedule is the step arithmetic of one rollout: a canary step (when any
// canary was pending at the start) reaching every canary, then batches of
// StepSize nodes. The steps already taken keep what they reached (taken,
// batched): a step size changed mid-rollout sizes the steps to come only,
// so that no step reaches more than one batch of the size in force
// (docs/rollout-design.md#decisions-where-the-specification-was-silent, no catch-up).
type Schedule struct {
	Pending, Canaries, StepSize int
	Soak, Interval              time.Duration
	// taken is the steps taken (Record.Steps) and batched the non-canary
	// nodes they reach (Record.Batched); zero: none.
	taken, batched int
}

// NewSchedule is the schedule of policy for a rollout that started with
// the counts in r and took r's steps.
func NewSchedule(policy *Policy, r Record) Schedule {
	s := Schedule{
		Pending:  r.Pending,
		Canaries: r.Canaries,
		StepSize: policy.StepSize(r.Pending),
		Soak:     policy.CanarySoak,
		Interval: policy.StepInterval,
	}
	s.batched = r.Batched
	if s.batched == 0 {
		s.batched = s.BatchQuota(r.Steps) // a record of an earlier version
	}
	s.taken = r.Steps
	return s
}

// canarySteps is 1 when the rollout has a canary step, else 0.
func (s Schedule) canarySteps() int {
	if s.Canaries > 0 {
		return 1
	}
	return 0
}

// batchesTaken is the batch steps taken.
func (s Schedule) batchesTaken() int { return max(s.taken-s.canarySteps(), 0) }

// Steps is the number of steps of the whole rollout: those taken, and
// enough of StepSize for the nodes they do not reach.
func (s Schedule) Steps() int {
	left := max(s.Pending-s.Canaries-s.batched, 0)
	return s.canarySteps() + s.batchesTaken() + (left+s.StepSize-1)/s.StepSize
}

// BatchQuota is how many non-canary nodes are reached once steps steps
// have been taken: what the steps taken reach, and StepSize more for each
// step beyond them.
func (s Schedule) BatchQuota(steps int) int {
	batches, taken := max(steps-s.canarySteps(), 0), s.batchesTaken()
	quota := s.batched + (batches-taken)*s.StepSize
	if batches < taken {
		quota = min(batches*s.StepSize, s.batched)
	}
	return min(max(quota, 0), s.Pending-s.Canaries)
}

// Wait is how long the step after step number taken waits once it is
// complete: the soak after the canary step, the interval otherwise; the
// first step does not wait.
func (s Schedule) Wait(taken int) time.Duration {
	switch {
	case taken == 0:
		return 0
	case taken == 1 && s.canarySteps() == 1:
		return s.Soak
	default:
		return s.Interval
	}
}

// Due is when the next step of r may be taken. The first step is due at
// once, except a first batch (no canary pending) of a rollout that replaced
// one in progress: it waits an interval after that one's last step, so
// that a change landing mid-rollout never brings two batches together.
func (s Schedule) Due(r Record) time.Time {
	if r.Steps == 0 {
		if s.canarySteps() == 0 && !r.StepAt.IsZero() {
			return r.StepAt.Add(s.Interval)
		}
		return time.Time{}
	}
	return r.StepAt.Add(s.Wait(r.Steps))
}
