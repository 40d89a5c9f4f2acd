package rollout

import (
	"encoding/json"
	"fmt"
	"time"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
)

// Record is the persisted state of the latest rollout. Together with the
// stored NodeSLOs it is all a restarted controller needs.
type Record struct {
	// Target is the fingerprint of the configuration rolled out
	// (sloconfig.Config.Fingerprint). A different fingerprint starts a new
	// rollout.
	Target string `json:"target"`
	// Started is when the rollout towards Target started.
	Started time.Time `json:"started"`
	// Pending is the number of nodes pending when the rollout started (the
	// base of a percent step size and of the step count), Canaries the
	// canary nodes among them. Both are counted again while no step has
	// been taken.
	Pending  int `json:"pending"`
	Canaries int `json:"canaries"`
	// Steps is the number of steps taken, the canary step included.
	Steps int `json:"steps"`
	// Batched is how many non-canary nodes the steps taken reach
	// (Schedule.BatchQuota), noted at each step: a step size changed
	// mid-rollout applies from the next step on, never to the steps taken
	// (docs/rollout-design.md#decisions-where-the-specification-was-silent,
	// no catch-up). 0 in a record of an earlier version: counted with the
	// step size in force.
	Batched int `json:"batched,omitempty"`
	// StepAt is when the current step was taken, or, when it was found
	// incomplete, when it was last seen so: the wait for the next step
	// counts from here.
	StepAt time.Time `json:"stepAt,omitzero"`
	// Done is set once no node is pending, at DoneAt.
	Done   bool      `json:"done,omitempty"`
	DoneAt time.Time `json:"doneAt,omitzero"`
	// Health is what the strategy's health gate judged (nil: nothing).
	Health *HealthRecord `json:"health,omitempty"`
	// Revision is the number of Target's revision, noted when the gate
	// halts it (0: not known), so that a halt remembered names it.
	Revision int64 `json:"revision,omitempty"`
	// RevertOf is set on the rollout a health gate's revert started: the
	// configuration halted that the ConfigMap's data still holds, and
	// whose place Target took (docs/rollout.md#health-gates).
	RevertOf string `json:"revertOf,omitempty"`
	// RejectedSince is set on a rollout that replaced one the health gate
	// halted (an undo, a new change, a revert): when the halted rollout
	// started. The nodes written since then carry the configuration it
	// halted, which the operator or the gate rejected: they are reached at
	// once, not held in steps (docs/rollout.md#after-a-halt).
	RejectedSince time.Time `json:"rejectedSince,omitzero"`
	// Halts are the configurations the health gate halted before the
	// rollout of Target, newest last: applied again, they stay halted
	// until a retry (halts.go).
	Halts []Halt `json:"halts,omitempty"`
}

// Equal reports whether two records are the same record.
func (r Record) Equal(o Record) bool { return r.Encode() == o.Encode() }

// IsZero reports whether r is no record at all.
func (r Record) IsZero() bool { return r.Equal(Record{}) }

// Encode renders r as the annotation's value.
func (r Record) Encode() string {
	// A struct of strings, ints, times, bools and a map of strings always marshals.
	b, _ := json.Marshal(r)
	return string(b)
}

// ParseRecord reads a record's JSON. An empty value is no record. A
// value that does not parse is an error; the controller then starts a
// new rollout, which is safe: it holds every pending node and reaches
// the canaries first.
func ParseRecord(value string) (Record, error) {
	var r Record
	if value == "" {
		return r, nil
	}
	if err := json.Unmarshal([]byte(value), &r); err != nil {
		return Record{}, fmt.Errorf("rollout record: %w", err)
	}
	return r, nil
}

// RecordOf reads the record a NodeSLORollout's status holds (nil: none).
func RecordOf(api *nodeslov1alpha1.RolloutRecord) (Record, error) {
	return ParseRecord(recordText(api))
}

// recordText is the record of a NodeSLORollout's status as Record's JSON.
// The API type has Record's shape, field for field, so the text is the
// one Encode wrote (TestTheStatusHoldsTheRecordAsEncoded).
func recordText(api *nodeslov1alpha1.RolloutRecord) string {
	if api == nil {
		return ""
	}
	b, _ := json.Marshal(api) // strings, numbers, bools, maps and lists always marshal
	return string(b)
}

// apiRecord is an encoded record as a NodeSLORollout's status holds it
// ("" or one that does not parse: none).
func apiRecord(text string) *nodeslov1alpha1.RolloutRecord {
	var api nodeslov1alpha1.RolloutRecord
	if text == "" || json.Unmarshal([]byte(text), &api) != nil {
		return nil
	}
	return &api
}
