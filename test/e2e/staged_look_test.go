//go:build e2e

package e2e

import (
	"fmt"
	"slices"
	"strings"
	"time"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// stagedLook checks, look after look, the rules a staged rollout keeps
// whatever happens to the control plane and the replicas
// (docs/rollout.md#behaviour): the canaries first; no node on the new
// configuration beyond what the steps the NodeSLORollout's status records
// reach; no node written twice, nor back to the old configuration; no step
// begun before its soak or interval since the last write of the step
// before. Each look lists the NodeSLOs first and reads the status after:
// the controller records a step before it writes its nodes, so a node the
// list shows on the new configuration is within the status read after.
type stagedLook struct {
	// before is every NodeSLO's generation before the change; canaries are
	// the strategy's canary nodes; target is the new configuration's
	// fingerprint; soak and interval are the strategy's.
	before          map[string]int64
	canaries        []string
	target          string
	soak, interval  time.Duration
	changed         map[string]bool
	reached, others int
	status          nodeslov1alpha1.NodeSLORolloutStatus
	// begun[k] and done[k] are when a look first saw stage k begun (a node
	// of it on the new configuration) and complete (at the look's end):
	// stage 0 is the canary step, stage b the b-th batch. doneAfter[k] is
	// when the look before the one that saw stage k complete started: the
	// stage's last write came after it. lastStart is when the look before
	// this one started.
	begun, done, doneAfter []time.Time
	lastStart              time.Time
}

// check judges one look, which started at started and read slos then
// status; it returns what the look shows wrong ("": nothing).
func (l *stagedLook) check(started time.Time, slos []slov1alpha1.NodeSLO,
	status nodeslov1alpha1.NodeSLORolloutStatus) string {
	defer func() { l.lastStart = started }()
	if l.changed == nil {
		l.changed = map[string]bool{}
	}
	l.status = status
	reached, canaries := 0, 0
	for _, slo := range slos {
		was, ok := l.before[slo.Name]
		if !ok {
			return fmt.Sprintf("NodeSLO %s appeared during the rollout", slo.Name)
		}
		writes := slo.Generation - was
		onNew := writes == 1
		if strings.HasPrefix(slo.Name, "leader-test-") {
			// The leader-test nodes go from 200 to leaderTestPercent; the
			// suite's other nodes are told apart by their generation alone.
			onNew = cpuBurstPercent(slo) == leaderTestPercent
			if onNew != (writes == 1) {
				return fmt.Sprintf("NodeSLO %s written %d times, cpuBurstPercent %d", slo.Name, writes,
					cpuBurstPercent(slo))
			}
		}
		switch {
		case writes > 1:
			return fmt.Sprintf("NodeSLO %s written %d times", slo.Name, writes)
		case !onNew && l.changed[slo.Name]:
			return fmt.Sprintf("NodeSLO %s went back from the new configuration", slo.Name)
		case onNew:
			l.changed[slo.Name] = true
			reached++
			if slices.Contains(l.canaries, slo.Name) {
				canaries++
			}
		}
	}
	l.reached, l.others = reached, reached-canaries
	if l.others > 0 && canaries < len(l.canaries) {
		return fmt.Sprintf("%d nodes beyond the canaries on the new configuration with %d of %d canaries",
			l.others, canaries, len(l.canaries))
	}
	if recorded := l.recorded(); reached > recorded {
		return fmt.Sprintf("%d nodes on the new configuration, the status records %d steps of %d "+
			"(configuration %s, %d canaries): %d nodes", reached, status.Step, status.StepSize,
			status.Configuration, len(l.canaries), recorded)
	}
	return l.timeline()
}

// recorded is how many nodes the steps the status records reach: none
// before it records the target, then the canaries for the first step and
// a batch for each step after (rollout.Schedule's Quota).
func (l *stagedLook) recorded() int {
	st := l.status
	if st.Configuration != l.target || st.Step == 0 {
		return 0
	}
	return min(len(l.canaries)+int(st.Step-1)*int(st.StepSize), int(st.PendingAtStart))
}

// timeline notes the stages the look sees begun and complete, and checks
// that none began before the wait after the stage before was over. The gap
// between the last write of the stage before and the first of this one is
// at most the time from the start of the look before the one that saw the
// stage before complete (its last write came after) to the end of this look
// (its first write came before): a gap that short, shorter than the wait
// less a second, is a step taken early. The second is what the rollout
// allows: the wait counts from the last decision that saw a node unwritten,
// taken a second at most before the last write (docs/rollout.md#behaviour,
// "a step's writes slowed").
func (l *stagedLook) timeline() string {
	now := time.Now()
	// reachedBy is how many nodes are reached once stage k is complete.
	reachedBy := func(k int) int {
		if k < 0 {
			return 0
		}
		return len(l.canaries) + min(k*int(l.status.StepSize), int(l.status.PendingAtStart)-len(l.canaries))
	}
	for k := len(l.begun); k < int(l.status.Steps) && l.reached > reachedBy(k-1); k++ {
		l.begun = append(l.begun, now)
		if k == 0 || l.lastStart.IsZero() {
			continue
		}
		// The stage before is seen complete by this look when no look
		// before did: its last write came after the look before began.
		lastWriteAfter := l.lastStart
		if k-1 < len(l.doneAfter) {
			lastWriteAfter = l.doneAfter[k-1]
		}
		if most := now.Sub(lastWriteAfter); most < l.wait(k)-time.Second {
			return fmt.Sprintf("stage %d began at most %s after the last write of stage %d: its wait is %s",
				k, most.Round(time.Millisecond), k-1, l.wait(k))
		}
	}
	for len(l.done) < len(l.begun) && l.reached >= reachedBy(len(l.done)) {
		l.done, l.doneAfter = append(l.done, now), append(l.doneAfter, l.lastStart)
	}
	return ""
}

// wait is the strategy's wait before stage k: the soak before the first
// batch, the interval before each other.
func (l *stagedLook) wait(k int) time.Duration {
	switch k {
	case 0:
		return 0
	case 1:
		return l.soak
	default:
		return l.interval
	}
}

// converged reports whether every node pending at the start is on the new
// configuration and the status says the rollout completed.
func (l *stagedLook) converged() bool {
	return l.status.Configuration == l.target && l.status.Phase == rollout.PhaseCompleted &&
		l.reached == int(l.status.PendingAtStart)
}

// midBatch reports whether the look saw a batch begun and not complete.
func (l *stagedLook) midBatch() bool {
	return len(l.begun) >= 2 && len(l.done) < len(l.begun)
}

// lateness is, for each batch, how much later than its schedule a look
// first saw it begun: its wait after a look first saw the stage before
// complete.
func (l *stagedLook) lateness() (late []time.Duration, largest time.Duration) {
	for k := 1; k < len(l.begun) && k-1 < len(l.done); k++ {
		d := l.begun[k].Sub(l.done[k-1].Add(l.wait(k)))
		late = append(late, d.Round(10*time.Millisecond))
		largest = max(largest, d)
	}
	return late, largest.Round(10 * time.Millisecond)
}
