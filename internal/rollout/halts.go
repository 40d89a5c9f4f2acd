package rollout

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// A configuration the health gate halted stays halted when it is applied
// again (docs/rollout.md#gitops-argo-cd-flux): GitOps tools put the data of
// Git back whenever the ConfigMap drifts from it, so the halt is remembered
// by the configuration's fingerprint, in the rollout record the controller
// owns, and not by anything written into the data.

// maxHaltsKept bounds the halts the record remembers besides the rollout
// in progress; the oldest is forgotten first. maxHaltSummary bounds each
// one's summary, so that the record stays small and within the CRD's
// bounds of status.rolloutRecord.halts.
const (
	maxHaltsKept   = 10
	maxHaltSummary = 512
)

// Halt is a configuration the health gate halted, remembered after a
// newer rollout replaced its own.
type Halt struct {
	// Target is the configuration halted (sloconfig.Config.Fingerprint).
	Target string `json:"target"`
	// Revision is the number of its revision (0: not known).
	Revision int64 `json:"revision,omitempty"`
	// HaltedAt is when the gate halted it; a retry names it.
	HaltedAt time.Time `json:"haltedAt"`
	// Revert: onUnhealthy was revert.
	Revert bool `json:"revert,omitempty"`
	// Summary names the unhealthy nodes then, shortened.
	Summary string `json:"summary,omitempty"`
}

// Retry is the operator's retry (spec.retry): the halt to roll out again,
// named by its configuration and the time of the halt. A later halt of the
// same configuration has another time, so a spec.retry left in place never
// retries it again by itself.
type Retry struct {
	Fingerprint string
	HaltedAt    time.Time
}

// retries reports whether r asks to roll out again target, halted at haltedAt.
func (r Retry) retries(target string, haltedAt time.Time) bool {
	return r.Fingerprint != "" && r.Fingerprint == target && SameSecond(r.HaltedAt, haltedAt)
}

// retriedBy reports whether retry rolls out target again, whose rollout r
// records halted: a new rollout of it starts, with no verdicts, so that
// nothing judged of the halted one is held against it.
func (r Record) retriedBy(retry Retry, target string) bool {
	return r.Target == target && r.Health.Halted() && retry.retries(r.Target, r.Health.HaltedAt)
}

// HaltOf is the halt the record remembers of configuration target: the
// rollout in progress when it is target's and halted, else the newest
// entry of Halts for it. ok is false when target was not halted.
func (r Record) HaltOf(target string) (Halt, bool) {
	if r.Target == target && r.Health.Halted() {
		return r.currentHalt(), true
	}
	for _, h := range slices.Backward(r.Halts) {
		if h.Target == target {
			return h, true
		}
	}
	return Halt{}, false
}

// currentHalt is the halt of the rollout in progress as a Halt.
func (r Record) currentHalt() Halt {
	return Halt{Target: r.Target, Revision: r.Revision, HaltedAt: r.Health.HaltedAt, Revert: r.Health.Revert,
		Summary: sloconfig.Shorten(r.Health.HaltSummary(), maxHaltSummary)}
}

// haltsAfter is what a new rollout towards target remembers of r: r's
// halts, r's own when it was halted, none of target (it rolls out now),
// at most maxHaltsKept.
func (r Record) haltsAfter(target string) []Halt {
	halts := slices.Clone(r.Halts)
	if r.Health.Halted() {
		halts = append(halts, r.currentHalt())
	}
	halts = slices.DeleteFunc(halts, func(h Halt) bool { return h.Target == target })
	if len(halts) > maxHaltsKept {
		halts = halts[len(halts)-maxHaltsKept:]
	}
	if len(halts) == 0 {
		return nil
	}
	return halts
}

// Standing is what the controller puts in force for the ConfigMap's data,
// given the rollout record (StandingOf).
type Standing struct {
	// Hold is set when the ConfigMap's data is a halted configuration not
	// retried: the configuration the record's rollout targets stays in
	// force (a revert, or whatever was in force when the data was applied
	// again), and nothing is written for the data.
	Hold string
	// Revert is set when the rollout of the ConfigMap's data has just been
	// halted under onUnhealthy revert: the previous revision's
	// configuration goes in force instead, the ConfigMap's data untouched.
	Revert bool
	// Halt is the halt of the ConfigMap's data (with Hold or Revert).
	Halt Halt
}

// StandingOf decides what the ConfigMap's configuration (fingerprint data)
// gets, from the rollout record (status.rolloutRecord) and the operator's retry.
// A record that does not parse withholds nothing: the rollout starts
// again, canaries first, as for any unreadable record.
func StandingOf(record, data string, retry Retry) Standing {
	rec, err := ParseRecord(record)
	if err != nil || rec.Target == "" {
		return Standing{}
	}
	halt, halted := rec.HaltOf(data)
	switch {
	case !halted || retry.retries(halt.Target, halt.HaltedAt):
		return Standing{}
	case rec.Target == data:
		// The rollout in progress is the data's: halted, it holds its
		// pending nodes, unless it is to be reverted (a revert is never
		// reverted again: the data is then not the record's target).
		return Standing{Revert: halt.Revert, Halt: halt}
	}
	return Standing{Hold: rec.Target, Halt: halt}
}

// withheldOf is what a status says (status.withheld) when the ConfigMap's
// data (fingerprint data) is a configuration the health gate halted that
// is not in force, under the rollout record rec (nil otherwise).
func withheldOf(rec Record, data string) *nodeslov1alpha1.WithheldConfiguration {
	if data == "" || data == rec.Target {
		return nil
	}
	h, ok := rec.HaltOf(data)
	if !ok {
		return nil
	}
	return &nodeslov1alpha1.WithheldConfiguration{Configuration: h.Target, Revision: h.Revision,
		HaltedAt: apiTime(h.HaltedAt), Summary: h.Summary, Reverted: rec.RevertOf == data}
}

// AtRevision is " at revision N", or "" when the revision is not known (0).
func AtRevision(revision int64) string {
	if revision == 0 {
		return ""
	}
	return fmt.Sprintf(" at revision %d", revision)
}

// withheldEvent says that the ConfigMap's data is not in force because the
// health gate halted it, once per halt: reported identifies the Event last
// recorded, and the identity to remember is returned. A revert says so
// itself (the controller's RolloutReverted Event).
func withheldEvent(
	w *nodeslov1alpha1.WithheldConfiguration, inForce string, revertStarted bool, reported string,
) ([]Event, string) {
	if w == nil {
		return nil, ""
	}
	id := w.Configuration + "\x00" + w.HaltedAt.String()
	if id == reported || revertStarted {
		return nil, id
	}
	stays := "configuration " + ShortTarget(inForce) + " stays in force"
	if w.Reverted {
		stays = "the previous configuration, " + ShortTarget(inForce) + ", the health gate reverted to, stays in force"
	}
	action := "Withhold " + ShortTarget(w.Configuration)
	return []Event{{Type: corev1.EventTypeWarning, Reason: ReasonWithheld, Action: action,
		Note: sloconfig.Shorten(fmt.Sprintf("the ConfigMap's data, configuration %s, was halted by the health gate%s "+
			"at %s (%s); it is not rolled out again: %s and no NodeSLO is written for it; "+
			"to roll it out again: kubectl nodeslo rollout retry; or change the ConfigMap",
			ShortTarget(w.Configuration), AtRevision(w.Revision), w.HaltedAt.UTC().Format(time.RFC3339), w.Summary, stays),
			sloconfig.MaxEventNote)}}, id
}
