package plugin

import (
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// GateStatus is what `rollout status` shows of the rollout key's health
// gate (docs/rollout.md#health-gates): its settings, and what it judged of
// the rollout of the configuration in force.
type GateStatus struct {
	// Gate is the key's healthGate (nil: the key has none, or is invalid).
	Gate *sloconfig.HealthGate
	// Health is the gate's record of this rollout (nil: nothing judged).
	Health *rollout.HealthRecord
	// Resuming: the rollout is halted, but its key has changed since the
	// halt and is not paused, which is what resumes it; the controller
	// has not decided on it yet.
	Resuming bool
}

// gateStatus reads the health gate's part of the status from the record
// of the configuration in force and the rollout key as written.
func gateStatus(load sloconfig.RolloutLoad, rec rollout.Record, recorded bool, keyValue string) GateStatus {
	var g GateStatus
	if load.Policy != nil {
		g.Gate = load.Policy.HealthGate
	}
	if !recorded {
		return g
	}
	g.Health = rec.Health
	g.Resuming = g.Health.ResumedBy(load.Policy, rollout.KeyFingerprint(keyValue))
	return g
}

// Halted reports whether the gate holds the rollout.
func (g GateStatus) Halted() bool { return g.Health.Halted() }

// writeSettings prints the gate's settings on one line, with the key's
// field names.
func (g GateStatus) writeSettings(w io.Writer) {
	if g.Gate == nil {
		return
	}
	printLine(w, fmt.Sprintf("health gate: maxUnhealthyNodes %s; nodeConditions %s; "+
		"evictions %s, maxPerNode %d; onUnhealthy %s",
		g.Gate.MaxUnhealthyNodes.String(), strings.Join(g.Gate.ConditionNames(), ", "),
		strings.Join(g.Gate.EvictionReasons, ", "), g.Gate.MaxEvictionsPerNode, g.Gate.OnUnhealthy()))
}

// writeVerdicts prints the halt and what to do about it, or, without a
// halt, the verdicts so far; then every unhealthy node with its signal.
// reached is the number of nodes the rollout reached, the base of a
// percent maxUnhealthyNodes.
func (g GateStatus) writeVerdicts(w io.Writer, reached int) {
	h := g.Health
	if h.UnhealthyCount() == 0 && !h.Halted() {
		return
	}
	counted := len(h.Unhealthy) - h.Tolerated
	switch {
	case h.Halted():
		beyond := ""
		if h.Tolerated > 0 {
			beyond = fmt.Sprintf(" beyond the %d a resume tolerated", h.Tolerated)
		}
		printLine(w, fmt.Sprintf("halted: yes, by the health gate at %s: %s unhealthy%s, more than %s",
			h.HaltedAt.UTC().Format(time.RFC3339), reachedNodes(counted), beyond, g.allowed(reached)))
	case g.Gate == nil:
		printLine(w, fmt.Sprintf("unhealthy: %s, judged by a health gate the rollout key no longer has",
			reachedNodes(len(h.Unhealthy))))
	case h.Tolerated > 0:
		printLine(w, fmt.Sprintf("unhealthy: %s, %d of them tolerated by a resume; "+
			"beyond those, the gate halts on more than %s",
			reachedNodes(len(h.Unhealthy)), h.Tolerated, g.allowed(reached)))
	default:
		printLine(w, fmt.Sprintf("unhealthy: %s; the gate halts on more than %s",
			reachedNodes(counted), g.allowed(reached)))
	}
	for _, name := range h.UnhealthyNames() {
		printLine(w, fmt.Sprintf("unhealthy node %s: %s", name, h.Unhealthy[name]))
	}
	switch {
	case !h.Halted():
	case g.Resuming:
		printLine(w, "resume: under way: the rollout key changed since the halt and is not paused; "+
			"the controller resumes the rollout at its next decision, tolerating the unhealthy nodes above")
	case h.Revert:
		printLine(w, "reverting to the previous revision (onUnhealthy: revert): "+
			"it is written back and rolled out to the reached nodes")
	default:
		printLine(w, "resume: kubectl nodeslo rollout resume (the unhealthy nodes above are tolerated from then on)")
		printLine(w, "undo: kubectl nodeslo rollout undo (puts the previous revision back)")
	}
}

// allowed says how many unhealthy nodes the gate allows ("the 1
// allowed"), and for a percent what it is a percent of. The controller
// counts the nodes it judged, which the nodes reached approach; without a
// gate in the key (removed since the halt) the count is not known.
func (g GateStatus) allowed(reached int) string {
	if g.Gate == nil {
		return "the gate allowed"
	}
	n := g.Gate.MaxUnhealthy(reached)
	if g.Gate.MaxUnhealthyNodes.Type == intstr.Int {
		return fmt.Sprintf("the %d allowed", n)
	}
	return fmt.Sprintf("the %d allowed (maxUnhealthyNodes %s of %s)",
		n, g.Gate.MaxUnhealthyNodes.String(), reachedNodes(reached))
}

// reachedNodes is "1 reached node" or "N reached nodes".
func reachedNodes(n int) string {
	if n == 1 {
		return "1 reached node"
	}
	return fmt.Sprintf("%d reached nodes", n)
}
