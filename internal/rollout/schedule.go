package rollout

import (
	"time"
)

// Schedule is the step arithmetic of one rollout: a canary step (when any
// canary was pending at the start) reaching every canary, then batches of
// StepSize nodes.
type Schedule struct {
	Pending, Canaries, StepSize int
	Soak, Interval              time.Duration
}

// NewSchedule is the schedule of policy for a rollout that started with
// the counts in r.
func NewSchedule(policy *Policy, r Record) Schedule {
	return Schedule{
		Pending:  r.Pending,
		Canaries: r.Canaries,
		StepSize: policy.StepSize(r.Pending),
		Soak:     policy.CanarySoak,
		Interval: policy.StepInterval,
	}
}

// canarySteps is 1 when the rollout has a canary step, else 0.
func (s Schedule) canarySteps() int {
	if s.Canaries > 0 {
		return 1
	}
	return 0
}

// Steps is the number of steps of the whole rollout.
func (s Schedule) Steps() int {
	rest := s.Pending - s.Canaries
	return s.canarySteps() + (rest+s.StepSize-1)/s.StepSize
}

// BatchQuota is how many non-canary nodes are reached once steps steps
// have been taken.
func (s Schedule) BatchQuota(steps int) int {
	batches := max(steps-s.canarySteps(), 0)
	return min(batches*s.StepSize, s.Pending-s.Canaries)
}

// Quota is how many of the nodes pending at the start are reached once
// steps steps have been taken: never more than one step beyond Quota(steps-1).
func (s Schedule) Quota(steps int) int {
	if steps <= 0 {
		return 0
	}
	return s.Canaries + s.BatchQuota(steps)
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
