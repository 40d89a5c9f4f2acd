package plugin

import (
	"fmt"
	"io"
	"strings"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// The health gate's part of `rollout status` (docs/rollout.md#health-gates):
// what the gate judged of the rollout, as the NodeSLORollout's status says
// it.

// writeVerdicts prints the halt and what to do about it, or, without a
// halt, the verdicts so far; then the unhealthy nodes the status lists,
// each with its signal, and how many it left out.
func (s RolloutStatus) writeVerdicts(w io.Writer) {
	st := s.Status
	h := st.Health
	halted := st.Phase == rollout.PhaseHalted
	if h == nil || (h.Unhealthy == 0 && !halted && len(h.Metrics) == 0) {
		return
	}
	counted := h.Unhealthy - h.Tolerated
	switch {
	case halted && haltedByMetrics(h, counted):
		printLine(w, "halted: yes, by the health gate's metric checks at "+timeText(h.HaltedAt))
	case h.Unhealthy == 0 && !halted:
	case halted:
		beyond := ""
		if h.Tolerated > 0 {
			beyond = fmt.Sprintf(" beyond the %d a resume tolerated", h.Tolerated)
		}
		printLine(w, fmt.Sprintf("halted: yes, by the health gate at %s: %s unhealthy%s, more than %s",
			timeText(h.HaltedAt), reachedNodes(counted), beyond, allowed(h.Allowed, h.AllowedOf,
				h.MaxUnhealthyNodes)))
	case h.Gate == "":
		printLine(w, fmt.Sprintf("unhealthy: %s, judged by a health gate spec.strategy no longer has",
			reachedNodes(h.Unhealthy)))
	case h.Tolerated > 0:
		printLine(w, fmt.Sprintf("unhealthy: %s, %d of them tolerated by a resume; "+
			"beyond those, the gate halts on more than %s",
			reachedNodes(h.Unhealthy), h.Tolerated, allowed(h.Allowed, h.AllowedOf, h.MaxUnhealthyNodes)))
	default:
		printLine(w, fmt.Sprintf("unhealthy: %s; the gate halts on more than %s",
			reachedNodes(counted), allowed(h.Allowed, h.AllowedOf, h.MaxUnhealthyNodes)))
	}
	for _, n := range h.Nodes {
		printLine(w, fmt.Sprintf("unhealthy node %s: %s", n.Name, n.Signal))
	}
	if h.Omitted > 0 {
		printLine(w, fmt.Sprintf("unhealthy nodes not listed: %d more (the status lists the first %d by name)",
			h.Omitted, len(h.Nodes)))
	}
	writeMetricChecks(w, h)
	switch {
	case !halted:
	case h.Revert:
		printLine(w, "reverting to the previous revision (onUnhealthy: revert): its configuration goes in force "+
			"in place of the ConfigMap's data, which is not written, and goes back to every reached node at once")
	default:
		printLine(w, "resume: kubectl nodeslo rollout resume (the unhealthy nodes above are tolerated from then on)")
		printLine(w, "undo: kubectl nodeslo rollout undo (puts the previous revision back)")
	}
}

// allowed says how many unhealthy nodes the gate allows ("the 1
// allowed"), and for a percent (setting, as written) what it is a percent
// of; n is -1 when the status does not know.
func allowed(n, of int32, setting string) string {
	switch {
	case n < 0:
		return "the gate allowed"
	case !strings.HasSuffix(setting, "%"):
		return fmt.Sprintf("the %d allowed", n)
	}
	return fmt.Sprintf("the %d allowed (maxUnhealthyNodes %s of %s)", n, setting, reachedNodes(of))
}

// reachedNodes is "1 reached node" or "N reached nodes".
func reachedNodes(n int32) string {
	if n == 1 {
		return "1 reached node"
	}
	return fmt.Sprintf("%d reached nodes", n)
}

// writeWithheld says, when the ConfigMap's data is not in force, why and
// how to roll it out again (docs/rollout.md#gitops-argo-cd-flux).
func writeWithheld(w io.Writer, st *nodeslov1alpha1.NodeSLORolloutStatus) {
	wh := st.Withheld
	if wh == nil {
		return
	}
	instead := "configuration " + rollout.ShortTarget(st.Configuration) + " stays in force, as above"
	if wh.Reverted {
		instead = "the previous revision's configuration, " + rollout.ShortTarget(st.Configuration) +
			", is in force in its place (onUnhealthy: revert)"
	}
	printLine(w, fmt.Sprintf("not in force: the ConfigMap's data, configuration %s, halted by the health gate%s at %s "+
		"(%s); %s; no NodeSLO is written for it, however often it is applied again",
		rollout.ShortTarget(wh.Configuration), rollout.AtRevision(wh.Revision), timeText(wh.HaltedAt), wh.Summary, instead))
	printLine(w, "retry: kubectl nodeslo rollout retry (rolls it out again, canaries first); or change the ConfigMap")
}

// writeBefore prints the nodes seen unhealthy before the rollout wrote
// them: the gate does not count them, and they are not canaries.
func (s RolloutStatus) writeBefore(w io.Writer) {
	h := s.Status.Health
	if h == nil || h.Before == 0 {
		return
	}
	nodes := "1 node"
	if h.Before != 1 {
		nodes = fmt.Sprintf("%d nodes", h.Before)
	}
	printLine(w, "unhealthy before their write: "+nodes+", not held against the change and not used as canaries")
	for _, n := range h.BeforeNodes {
		printLine(w, fmt.Sprintf("unhealthy before its write, node %s: %s", n.Name, n.Signal))
	}
	if more := int(h.Before) - len(h.BeforeNodes); more > 0 {
		printLine(w, fmt.Sprintf("unhealthy before their write, not listed: %d more", more))
	}
}
