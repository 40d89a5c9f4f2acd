package rollout

import "time"

// Memory is what the config-cache controller remembers between two
// rollout plans. All of it may be lost (a restart, a new leader): the
// state of a rollout is the stored NodeSLOs and the record annotation
// (see the package comment).
type Memory struct {
	// gate is the gate last published, to tell which held nodes changed since.
	gate *Gate
	// recordVersion is the ConfigMap's resourceVersion after our last record
	// write, and nextAt when that plan wanted to decide again: the watch
	// event of our own write then needs no new plan.
	recordVersion string
	nextAt        time.Time
	// pausedReported identifies the RolloutPaused Event last recorded.
	pausedReported string
	// withheldReported identifies the RolloutWithheld Event last recorded.
	withheldReported string
	// metricsMeasured is when each metric check of the gate was last
	// measured, by name; lost on a restart, which measures at once.
	metricsMeasured map[string]time.Time
}

// Echo reports whether a reconcile of ConfigMap version is only the watch
// event of our own record write, with no step due yet.
func (m Memory) Echo(version string, now time.Time) bool {
	return version != "" && version == m.recordVersion && (m.nextAt.IsZero() || now.Before(m.nextAt))
}

// NextAt is when the last plan wanted to decide again (zero: only on a
// ConfigMap change).
func (m Memory) NextAt() time.Time { return m.nextAt }

// HoldsNodes reports whether the gate last published holds any node, or
// was published at all: a ConfigMap without a rollout must still release it.
func (m Memory) HoldsNodes() bool { return m.gate != nil }

// RecordWritten notes that our record write made the ConfigMap's
// resourceVersion version.
func (m *Memory) RecordWritten(version string) { m.recordVersion = version }

// Ungated is the plan when the nodes could not be observed: no gate is
// published, and nothing else changes.
func (m Memory) Ungated() Plan { return Plan{memory: m} }
