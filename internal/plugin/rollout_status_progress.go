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
	case s.InForce == nil:
		return fmt.Sprintf("Waiting for the controller to put a configuration of ConfigMap %s in force...", s.ConfigMap)
	case st == nil:
		return fmt.Sprintf("Waiting for the controller to decide on configuration %s (revision %d)...",
			rollout.ShortTarget(s.InForce.Fingerprint), s.InForce.Number)
	case !s.TakenUp():
		return fmt.Sprintf("Waiting for the controller to take up configuration %s "+
			"(in force: configuration %s, revision %d)...",
			rollout.ShortTarget(s.Fingerprint), rollout.ShortTarget(st.Fingerprint), s.InForce.Number)
	}
	line := fmt.Sprintf("Waiting for rollout of configuration %s: %d of %d nodes reached",
		rollout.ShortTarget(st.Fingerprint), st.Reached, st.PendingAtStart)
	if st.KeyInvalid {
		return line + ", held until the rollout key is valid..."
	}
	line += fmt.Sprintf(", step %d of %d", st.Step, st.Steps)
	switch {
	case st.Halted() && s.resuming():
		line += " (halted by the health gate; resume under way)"
	case st.Paused:
		line += " (paused)"
	}
	return line + "..."
}
