package rollout

import (
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Memory is what the rollout controller remembers between two
// rollout plans. All of it may be lost (a restart, a new leader): the
// state of a rollout is the stored NodeSLOs and the record (see the
// package comment).
type Memory struct {
	// gate is the gate last published, to tell which held nodes changed
	// since; gateTarget the target it was decided for, and released the
	// nodes that plan released (Plan.Release): a node neither held nor
	// released then was done or reached, and has that target in force
	// (Node.Reached, heldWithOf).
	gate       *Gate
	gateTarget *sloconfig.Config
	released   map[string]bool
	// nextAt is when the last plan wanted to decide again.
	nextAt time.Time
	// pausedReported identifies the RolloutPaused Event last recorded.
	pausedReported string
	// withheldReported identifies the RolloutWithheld Event last recorded.
	withheldReported string
	// metricsMeasured is when each metric check of the gate was last
	// measured, by name; lost on a restart, which measures at once.
	metricsMeasured map[string]time.Time
	// stepSeen is the step last seen incomplete, kept even when the
	// record saying so could not be persisted (seenIncomplete.onto).
	stepSeen seenIncomplete
}

// seenIncomplete is a step of a rollout seen incomplete (some of its nodes
// not yet storing the target) at a time.
type seenIncomplete struct {
	target string
	steps  int
	at     time.Time
}

// onto is rec with the wait for its next step counted from when s saw its
// step incomplete, when that is later than the record says. The record
// moves that time on at every decision that sees the step incomplete, but
// a decision whose record was not persisted (its status patch refused)
// leaves the stored time behind: counted from there, the soak or the
// interval after the step's writes would be cut short (docs/rollout.md#behaviour).
// Lost on a restart, as all of Memory.
func (s seenIncomplete) onto(rec Record, target string) Record {
	if s.target == target && rec.Target == target && s.steps == rec.Steps && rec.StepAt.Before(s.at) {
		rec.StepAt = s.at
	}
	return rec
}

// HoldsNodes reports whether the gate last published holds any node, or
// was published at all: a ConfigMap without a rollout must still release it.
func (m Memory) HoldsNodes() bool { return m.gate != nil }

// reached reports whether the node o, which differs from target now, was
// done or reached when the last plan of the same rollout was decided:
// neither held nor released by it, or released and written with the
// target since (its NodeSLO's stamp names it).
func (m Memory) reached(target string, o Observed) bool {
	if !m.knowsPlanOf(target) || m.gate.Has(o.Node.Name) {
		return false
	}
	return !m.released[o.Node.Name] || o.From == ShortTarget(target)
}

// inForceFor is the target of the last plan when that plan neither held
// nor released the node name: done or reached, the node had it in force
// (nil: not known, or the node was pending then).
func (m Memory) inForceFor(name string) *sloconfig.Config {
	if m.gate == nil || m.gate.Has(name) || m.released[name] {
		return nil
	}
	return m.gateTarget
}

// stillHeld is what the last plan of the rollout of target held the node
// name with, for a node that no longer differs from target (Node.Held).
func (m Memory) stillHeld(target, name string) (heldWith, bool) {
	if !m.knowsPlanOf(target) {
		return heldWith{}, false
	}
	return m.gate.heldWith(name)
}

// knowsPlanOf reports whether the last plan remembered was decided for
// target (false: none is, after a restart or a new leader, or it was for
// another configuration).
func (m Memory) knowsPlanOf(target string) bool {
	return m.gate != nil && m.gateTarget != nil && m.gateTarget.Fingerprint() == target
}
