package plugin

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// RolloutStatusInputs are what `kubectl nodeslo rollout status` reads: the
// ConfigMap in force (its data and the controller's record annotation) and,
// as for diff, the nodes and their stored NodeSLO specs.
type RolloutStatusInputs struct {
	DiffInputs
	// RecordValue is the ConfigMap's rollout record annotation ("" when none).
	RecordValue string
}

// RolloutStatus is where the rollout of the configuration in force stands.
type RolloutStatus struct {
	Rollout sloconfig.RolloutLoad
	// Target is the fingerprint of the configuration in force; Recorded
	// says whether the controller's record is about it (false: the
	// controller has not taken up this configuration yet).
	Target   string
	Recorded bool
	Record   rollout.Record
	// Pending are the nodes whose stored NodeSLO differs from what the
	// configuration resolves for them, Canaries those of them the canary
	// selector matches; New are nodes with no NodeSLO yet (written at once).
	Pending, Canaries, New int
	// Reached is how many of the nodes pending at the start are reached.
	Reached     int
	Step, Steps int
	StepSize    int
	Paused      bool
	// Gate is the health gate's settings and verdicts; a halt holds the
	// rollout as a pause does.
	Gate          GateStatus
	NextStep      time.Time
	RecordProblem string
	Nodes         int
}

// Done reports whether no node is pending, so the configuration in force
// is stored for every node, and the health gate has not halted its
// rollout: a halt waits for a resume or an undo, even after the last step.
func (s RolloutStatus) Done() bool { return s.Pending == 0 && s.New == 0 && !s.Gate.Halted() }

// ComputeRolloutStatus compares every node's stored NodeSLO with what the
// ConfigMap resolves for it and reads the record, as the controller does.
// An invalid key of the ConfigMap is resolved as frozen (the stored value
// stays); the controller may hold a last good value instead, so the count
// of pending nodes is then an estimate.
func ComputeRolloutStatus(in RolloutStatusInputs) RolloutStatus {
	cfg := sloconfig.Load(in.Data, nil)
	out := RolloutStatus{Rollout: sloconfig.LoadRollout(in.Data), Target: cfg.Fingerprint(), Nodes: len(in.Nodes)}
	rec, err := rollout.ParseRecord(in.RecordValue)
	if err != nil {
		out.RecordProblem = err.Error()
	}
	policy := out.Rollout.Policy
	observed := make([]rollout.Observed, len(in.Nodes))
	for i, node := range in.Nodes {
		observed[i] = rollout.Observed{Node: node, Stored: in.Stored[node.Name]}
	}
	for _, n := range rollout.Nodes(cfg, policy, observed) {
		switch {
		case !n.Stored:
			out.New++
		case n.Differs:
			out.Pending++
			if n.Canary {
				out.Canaries++
			}
		}
	}
	if !out.Rollout.Present {
		return out
	}
	out.Paused = rollout.Paused(out.Rollout)
	out.Recorded = rec.Target == out.Target
	out.Gate = gateStatus(out.Rollout, rec, out.Recorded, in.Data[string(sloconfig.KeyRollout)])
	if !out.Recorded {
		return out
	}
	out.Record = rec
	out.Reached = max(rec.Pending-out.Pending, 0)
	out.Step = rec.Steps
	if policy != nil {
		s := rollout.NewSchedule(policy, rec)
		out.Steps, out.StepSize = s.Steps(), s.StepSize
		if !out.Paused && !out.Gate.Halted() && out.Pending > 0 && rec.Steps < out.Steps {
			out.NextStep = s.Due(rec)
		}
	}
	return out
}

// Write prints the status, one fact a line.
func (s RolloutStatus) Write(w io.Writer) {
	for _, m := range s.Rollout.Messages() {
		printLine(w, "error: "+m)
	}
	if s.RecordProblem != "" {
		printLine(w, "warning: "+s.RecordProblem+" (the controller starts the rollout again)")
	}
	switch {
	case !s.Rollout.Present:
		printLine(w, "no rollout key ("+string(sloconfig.KeyRollout)+"): every change reaches every node at once")
	case !s.Recorded:
		printLine(w, fmt.Sprintf("configuration %s: the controller has not started its rollout yet",
			rollout.ShortTarget(s.Target)))
	case s.Rollout.Policy == nil:
		printLine(w, fmt.Sprintf("configuration %s: %d steps taken, started %s; held until the rollout key is valid",
			rollout.ShortTarget(s.Target), s.Step, s.Record.Started.UTC().Format(time.RFC3339)))
		printLine(w, fmt.Sprintf("reached: %d of %d nodes", s.Reached, s.Record.Pending))
	default:
		printLine(w, fmt.Sprintf("configuration %s: step %d of %d (step size %d), started %s",
			rollout.ShortTarget(s.Target), s.Step, s.Steps, s.StepSize, s.Record.Started.UTC().Format(time.RFC3339)))
		printLine(w, fmt.Sprintf("reached: %d of %d nodes", s.Reached, s.Record.Pending))
	}
	printLine(w, fmt.Sprintf("pending: %d nodes (%d canaries)", s.Pending, s.Canaries))
	if s.New > 0 {
		printLine(w, fmt.Sprintf("new: %d nodes without a NodeSLO (written at once)", s.New))
	}
	if s.Rollout.Present {
		s.Gate.writeSettings(w)
		printLine(w, "paused: "+s.pausedBy())
		s.Gate.writeVerdicts(w, s.Reached)
	}
	switch {
	case s.Gate.Halted():
	case s.Done():
		printLine(w, fmt.Sprintf("complete: all %d nodes have the configuration in force", s.Nodes))
	case !s.NextStep.IsZero():
		printLine(w, "next step: "+s.NextStep.UTC().Format(time.RFC3339))
	case s.Recorded && !s.Paused && s.Pending > 0:
		printLine(w, "next step: as soon as the current step's NodeSLOs are written")
	}
}

// pausedBy is the value of the "paused:" line: "no", or "yes" and every
// reason the rollout is held.
func (s RolloutStatus) pausedBy() string {
	var why []string
	if s.Gate.Halted() {
		why = append(why, "halted by the health gate")
	}
	switch {
	case s.Rollout.Policy == nil:
		why = append(why, "the rollout key is invalid")
	case s.Paused:
		why = append(why, "paused: true")
	}
	if len(why) == 0 {
		return "no"
	}
	return "yes (" + strings.Join(why, "; ") + ")"
}
