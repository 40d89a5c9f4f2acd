package plugin

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// RolloutStatus is what `kubectl nodeslo rollout status` shows: the status
// the controller published on the revision in force (its
// rollout.StatusAnnotation), printed as it is, and whether the ConfigMap
// as it stands now is what that status is about. Nothing of the rollout is
// computed here: the nodes and NodeSLOs are not read.
type RolloutStatus struct {
	ConfigMap ConfigMapRef
	// InForce is the revision in force, the newest of the history (nil:
	// the history is empty).
	InForce *rollout.Revision
	// Status is its status annotation (nil: it has none yet).
	Status *rollout.Status
	// Exists says whether the ConfigMap exists, Data is its data (nil when
	// it does not). Fingerprint is the
	// configuration its data loads into, loaded as the controller loads
	// it over the configuration in force (an invalid key keeps the
	// revision's value of it); Key is its rollout key as written now, and
	// KeyFingerprint that key's rollout.KeyFingerprint ("": no key).
	Exists         bool
	Data           map[string]string `json:"-"`
	Fingerprint    string
	Key            rollout.Key
	KeyFingerprint string
}

// FetchRolloutStatus reads the ConfigMap (absent: defaults) and its
// revision history: the status is the revision in force's.
func FetchRolloutStatus(ctx context.Context, c client.Reader, key client.ObjectKey) (RolloutStatus, error) {
	cm := &corev1.ConfigMap{}
	exists := true
	if err := c.Get(ctx, key, cm); apierrors.IsNotFound(err) {
		exists = false
	} else if err != nil {
		return RolloutStatus{}, fmt.Errorf("reading ConfigMap %s: %w", key, err)
	}
	ref := ConfigMapRef{Namespace: key.Namespace, Name: key.Name}
	h, err := FetchHistory(ctx, c, ref)
	if err != nil {
		return RolloutStatus{}, err
	}
	var data map[string]string
	if exists {
		data = cm.Data
		if data == nil {
			data = map[string]string{}
		}
	}
	return NewRolloutStatus(ref, data, exists, h)
}

// NewRolloutStatus reads the status of h's revision in force, and
// fingerprints the ConfigMap's data (nil when it does not exist) to tell
// whether the controller has taken it up. A status annotation that does
// not decode is an error.
func NewRolloutStatus(ref ConfigMapRef, data map[string]string, exists bool, h History) (RolloutStatus, error) {
	s := RolloutStatus{ConfigMap: ref, InForce: h.InForce(), Exists: exists, Data: data, Key: rollout.LoadKey(data)}
	if raw, ok := data[string(sloconfig.KeyRollout)]; ok {
		s.KeyFingerprint = rollout.KeyFingerprint(raw)
	}
	var base *sloconfig.Config
	if s.InForce != nil {
		base = sloconfig.Load(s.InForce.Data, nil)
		if s.InForce.Status != "" {
			st, err := rollout.DecodeStatus(s.InForce.Status)
			if err != nil {
				return RolloutStatus{}, fmt.Errorf("revision %d of ConfigMap %s (ControllerRevision %s): %w",
					s.InForce.Number, ref, s.InForce.Name, err)
			}
			s.Status = &st
		}
	}
	s.Fingerprint = sloconfig.Load(data, base).Fingerprint()
	return s, nil
}

// TakenUp reports whether the status is about the ConfigMap's data as it
// stands: the controller has decided on this configuration.
func (s RolloutStatus) TakenUp() bool {
	return s.Status != nil && s.Status.About(s.Fingerprint)
}

// Done reports whether there is nothing left to wait for: the controller
// took the configuration up and its rollout completed (and is not halted),
// or it went to every node at once.
func (s RolloutStatus) Done() bool { return s.TakenUp() && s.Status.Done() }

// HaltedByTheGate reports whether the health gate holds the rollout of the
// ConfigMap's configuration halted, with no resume under way, or withholds
// the ConfigMap's data, a configuration it halted: either way no wait ends
// without an act of the operator.
func (s RolloutStatus) HaltedByTheGate() bool {
	return s.TakenUp() && ((s.Status.Halted() && !s.resuming()) || s.Status.Withheld != nil)
}

// haltError is the error a wait ends with when HaltedByTheGate.
func (s RolloutStatus) haltError() error {
	if wh := s.Status.Withheld; wh != nil {
		return fmt.Errorf("configuration %s, the ConfigMap's data, was halted by the health gate and is not in force",
			rollout.ShortTarget(wh.Fingerprint))
	}
	return fmt.Errorf("rollout of configuration %s halted by its health gate", rollout.ShortTarget(s.Status.Fingerprint))
}

// Write prints the status, one fact a line.
func (s RolloutStatus) Write(w io.Writer) {
	for _, m := range s.Key.Messages() {
		printLine(w, "error: "+m)
	}
	st := s.Status
	switch {
	case s.InForce == nil:
		printLine(w, fmt.Sprintf("ConfigMap %s has no revision history yet: "+
			"the controller has not put a configuration in force (is it running?)", s.ConfigMap))
		return
	case st == nil:
		printLine(w, fmt.Sprintf("configuration %s: revision %d, in force, has no rollout status yet "+
			"(the controller has not decided on it, or is of a version that does not publish one)",
			rollout.ShortTarget(s.InForce.Fingerprint), s.InForce.Number))
		return
	case !s.TakenUp():
		printLine(w, fmt.Sprintf("configuration %s: the controller has not taken up this configuration yet; "+
			"in force: configuration %s (revision %d)",
			rollout.ShortTarget(s.Fingerprint), rollout.ShortTarget(st.Fingerprint), s.InForce.Number))
		return
	}
	target, started := rollout.ShortTarget(st.Fingerprint), st.Started.UTC().Format(time.RFC3339)
	switch {
	case st.Phase == rollout.PhaseAllAtOnce:
		printLine(w, "no rollout key ("+string(sloconfig.KeyRollout)+"): every change reaches every node at once")
		printLine(w, fmt.Sprintf("configuration %s: put in force for every node at once", target))
	case st.KeyInvalid:
		printLine(w, fmt.Sprintf("configuration %s: %d steps taken, started %s; held until the rollout key is valid",
			target, st.Step, started))
	default:
		printLine(w, fmt.Sprintf("configuration %s: step %d of %d (step size %d), started %s",
			target, st.Step, st.Steps, st.StepSize, started))
	}
	if st.Phase != rollout.PhaseAllAtOnce {
		s.writeProgress(w)
	}
	writeWithheld(w, st)
	if s.Exists && s.KeyFingerprint != st.RolloutKey && !s.resuming() {
		printLine(w, "rollout key: changed since this status; the controller has not taken the change up yet")
	}
	printLine(w, fmt.Sprintf("updated: %s (the controller's status on revision %d)",
		st.Updated.UTC().Format(time.RFC3339), s.InForce.Number))
}

// writeProgress prints the lines of a staged rollout: the nodes reached and
// pending, the health gate, the pause, and what comes next.
func (s RolloutStatus) writeProgress(w io.Writer) {
	st := s.Status
	printLine(w, fmt.Sprintf("reached: %d of %d nodes", st.Reached, st.PendingAtStart))
	printLine(w, fmt.Sprintf("pending: %d nodes (%d canaries)", st.Pending, st.CanariesPending))
	if h := st.Health; h != nil && h.Gate != "" {
		printLine(w, "health gate: "+h.Gate)
	}
	printLine(w, "paused: "+pausedBy(st))
	s.writeVerdicts(w)
	s.writeBefore(w)
	switch {
	case st.Halted():
	case st.Phase == rollout.PhaseCompleted:
		printLine(w, "complete: every node has the configuration in force, since "+
			st.Completed.UTC().Format(time.RFC3339))
	case !st.NextStep.IsZero():
		printLine(w, "next step: "+st.NextStep.UTC().Format(time.RFC3339))
	case st.AwaitingWrites:
		printLine(w, fmt.Sprintf("next step: an interval after the NodeSLOs of step %d are all written "+
			"(some are not yet)", st.Step))
	case st.Phase == rollout.PhaseProgressing && st.Step >= st.Steps:
		printLine(w, "complete: once the NodeSLOs of the last step are written")
	}
}

// pausedBy is the value of the "paused:" line: "no", or "yes" and every
// reason the rollout is held.
func pausedBy(st *rollout.Status) string {
	var why []string
	if st.Halted() {
		why = append(why, "halted by the health gate")
	}
	switch {
	case st.KeyInvalid:
		why = append(why, "the rollout key is invalid")
	case st.Paused:
		why = append(why, "paused: true")
	}
	if len(why) == 0 {
		return "no"
	}
	return "yes (" + strings.Join(why, "; ") + ")"
}
