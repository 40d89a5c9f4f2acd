package rollout

import "time"

// Memory is what the config-cache controller remembers between two
// rollout plans. All of it may be lost (a restart, a new leader): the
// state of a rollout is the stored NodeSLOs and the record (see the
// package comment).
type Memory struct {
	// gate is the gate last published, to tell which held nodes changed since.
	gate *Gate
	// nextAt is when the last plan wanted to decide again.
	nextAt time.Time
	// pausedReported identifies the RolloutPaused Event last recorded.
	pausedReported string
	// withheldReported identifies the RolloutWithheld Event last recorded.
	withheldReported string
	// metricsMeasured is when each metric check of the gate was last
	// measured, by name; lost on a restart, which measures at once.
	metricsMeasured map[string]time.Time
}

// HoldsNodes reports whether the gate last published holds any node, or
// was published at all: a ConfigMap without a rollout must still release it.
func (m Memory) HoldsNodes() bool { return m.gate != nil }
