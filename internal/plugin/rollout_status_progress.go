package plugin

import (
	"fmt"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// ProgressLine is the one line `rollout status --watch` prints per change
// of the status, as kubectl rollout status prints one per change of a
// Deployment ("Waiting for deployment ... rollout to finish: 2 of 3
// updated replicas are available..."); the whole status comes once, when
// the wait ends.
func (s RolloutStatus) ProgressLine() string {
	st := s.Status
	switch {
	case s.Object == nil:
		return fmt.Sprintf("Waiting for the controller to create %s...", nodeSLORolloutName(s.ConfigMap))
	case st == nil:
		return fmt.Sprintf("Waiting for the controller to decide on ConfigMap %s (%s has no status yet)...",
			s.ConfigMap, nodeSLORolloutName(s.ConfigMap))
	case !s.TakenUp():
		return fmt.Sprintf("Waiting for the controller to take up %s (in force: %s)...", s.notTakenUp(), s.inForce(true))
	}
	line := fmt.Sprintf("Waiting for rollout of configuration %s: %d of %d nodes reached",
		rollout.ShortTarget(st.Configuration), st.Reached, st.PendingAtStart)
	if st.StrategyInvalid {
		return line + ", held until spec.strategy is valid..."
	}
	line += fmt.Sprintf(", step %d of %d", st.Step, st.Steps)
	if st.Paused {
		line += " (paused)"
	}
	return line + "..."
}
