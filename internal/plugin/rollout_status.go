package plugin

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// RolloutStatus is what `kubectl nodeslo rollout status` shows: the status
// the controller published on the NodeSLORollout of the ConfigMap, printed
// as it is, and whether the controller decided it on the ConfigMap and the
// NodeSLORollout's spec as they stand now. Nothing of the rollout is
// computed here: the nodes, the NodeSLOs and the revisions are not read,
// and the ConfigMap's data is not fingerprinted.
type RolloutStatus struct {
	ConfigMap ConfigMapRef
	// Exists says whether the ConfigMap exists, ResourceVersion is its
	// resourceVersion and Data its data (both empty when it does not);
	// Key is its spec.strategy as loaded now.
	Exists          bool
	ResourceVersion string
	Data            map[string]string `json:"-"`
	Key             rollout.Key
	// Object is the NodeSLORollout (nil: the controller has not created
	// it yet).
	Object *nodeslov1alpha1.NodeSLORollout
	// Status is its status (nil: none yet, the controller has not decided
	// on the ConfigMap).
	Status *nodeslov1alpha1.NodeSLORolloutStatus
}

// FetchRolloutStatus reads the ConfigMap (absent: it does not exist) and
// its NodeSLORollout: the status is the NodeSLORollout's.
func FetchRolloutStatus(ctx context.Context, c client.Reader, key client.ObjectKey) (RolloutStatus, error) {
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, key, cm); apierrors.IsNotFound(err) {
		cm = nil
	} else if err != nil {
		return RolloutStatus{}, fmt.Errorf("reading ConfigMap %s: %w", key, err)
	}
	ref := ConfigMapRef{Namespace: key.Namespace, Name: key.Name}
	obj, err := getNodeSLORollout(ctx, c, ref)
	if err != nil {
		return RolloutStatus{}, err
	}
	return NewRolloutStatus(ref, cm, obj), nil
}

// NewRolloutStatus is the status of obj (nil: no NodeSLORollout) about the
// ConfigMap cm (nil: it does not exist). A NodeSLORollout whose status has
// no phase has no status yet.
func NewRolloutStatus(ref ConfigMapRef, cm *corev1.ConfigMap, obj *nodeslov1alpha1.NodeSLORollout) RolloutStatus {
	s := RolloutStatus{ConfigMap: ref, Object: obj}
	if cm != nil {
		s.Exists, s.ResourceVersion, s.Data = true, cm.ResourceVersion, cm.Data
		if s.Data == nil {
			s.Data = map[string]string{}
		}
	}
	if obj != nil {
		s.Key = rollout.LoadStrategy(&obj.Spec, nil)
	}
	if obj != nil && obj.Status.Phase != "" {
		s.Status = &obj.Status
	}
	return s
}

// TakenUp reports whether the status was decided on the ConfigMap and the
// NodeSLORollout's spec as they stand: the ConfigMap's resourceVersion is
// the one the status observed (both empty when the ConfigMap does not
// exist), and so is the NodeSLORollout's generation.
func (s RolloutStatus) TakenUp() bool {
	return s.Status != nil && s.Object.Status.ObservedConfigMapVersion == s.ResourceVersion &&
		s.Object.Status.ObservedGeneration == s.Object.Generation
}

// Done reports whether there is nothing left to wait for: the controller
// took the ConfigMap up and its rollout completed (and is not halted), or
// it went to every node at once.
func (s RolloutStatus) Done() bool { return s.TakenUp() && rollout.StatusDone(s.Status) }

// HaltedByTheGate reports whether the health gate holds the rollout of the
// ConfigMap's configuration halted, or withholds the ConfigMap's data, a
// configuration it halted: either way no wait ends without an act of the
// operator.
func (s RolloutStatus) HaltedByTheGate() bool {
	return s.TakenUp() && (s.Status.Phase == rollout.PhaseHalted || s.Status.Withheld != nil)
}

// Revision is the number of the revision in force, as the status says (0:
// none recorded, or no status).
func (s RolloutStatus) Revision() int64 {
	if s.Object == nil {
		return 0
	}
	return s.Object.Status.Revision
}

// Configuration is the fingerprint of the ConfigMap's data as the
// controller decided on it: the configuration in force, or the data it
// withholds; "" while the controller has not taken the ConfigMap up.
func (s RolloutStatus) Configuration() string {
	switch {
	case !s.TakenUp():
		return ""
	case s.Status.Withheld != nil:
		return s.Status.Withheld.Configuration
	}
	return s.Status.Configuration
}

// haltError is the error a wait ends with when HaltedByTheGate.
func (s RolloutStatus) haltError() error {
	if wh := s.Status.Withheld; wh != nil {
		return fmt.Errorf("configuration %s, the ConfigMap's data, was halted by the health gate and is not in force",
			rollout.ShortTarget(wh.Configuration))
	}
	return fmt.Errorf("rollout of configuration %s halted by its health gate", rollout.ShortTarget(s.Status.Configuration))
}

// notTakenUp says what the controller has not decided on yet: the
// ConfigMap as it stands, the NodeSLORollout's spec, or both.
func (s RolloutStatus) notTakenUp() string {
	observed := s.Object.Status
	var what []string
	switch {
	case observed.ObservedConfigMapVersion == s.ResourceVersion:
	case !s.Exists:
		what = append(what, fmt.Sprintf("the deletion of ConfigMap %s (the status is of resourceVersion %s)",
			s.ConfigMap, observed.ObservedConfigMapVersion))
	case observed.ObservedConfigMapVersion == "":
		what = append(what, fmt.Sprintf("ConfigMap %s at resourceVersion %s (the status is of no ConfigMap)",
			s.ConfigMap, s.ResourceVersion))
	default:
		what = append(what, fmt.Sprintf("ConfigMap %s at resourceVersion %s (the status is of %s)",
			s.ConfigMap, s.ResourceVersion, observed.ObservedConfigMapVersion))
	}
	if observed.ObservedGeneration != s.Object.Generation {
		what = append(what, fmt.Sprintf("the spec of %s at generation %d (the status is of %d)",
			nodeSLORolloutName(s.ConfigMap), s.Object.Generation, observed.ObservedGeneration))
	}
	return strings.Join(what, " and ")
}

// inForce names the configuration in force and its revision, as the
// status says: "configuration X (revision N)", or, to go inside
// parentheses, "configuration X, revision N".
func (s RolloutStatus) inForce(parenthesized bool) string {
	out := "configuration " + rollout.ShortTarget(s.Status.Configuration)
	switch n := s.Revision(); {
	case n == 0:
	case parenthesized:
		out += fmt.Sprintf(", revision %d", n)
	default:
		out += fmt.Sprintf(" (revision %d)", n)
	}
	return out
}

// Write prints the status, one fact a line.
func (s RolloutStatus) Write(w io.Writer) {
	for _, m := range s.Key.Messages() {
		printLine(w, "error: "+m)
	}
	st := s.Status
	switch {
	case s.Object == nil:
		printLine(w, fmt.Sprintf("%s does not exist: every change of ConfigMap %s reaches every node at once "+
			"(its operator creates it, with the spec.strategy of a staged rollout: docs/rollout.md#the-strategy)",
			nodeSLORolloutName(s.ConfigMap), s.ConfigMap))
		return
	case st == nil:
		printLine(w, fmt.Sprintf("%s has no status yet: the controller has not decided on ConfigMap %s (is it running?)",
			nodeSLORolloutName(s.ConfigMap), s.ConfigMap))
		return
	case !s.TakenUp():
		printLine(w, fmt.Sprintf("the controller has not taken up %s yet; in force: %s", s.notTakenUp(), s.inForce(false)))
		return
	}
	target, started := rollout.ShortTarget(st.Configuration), timeText(st.Started)
	switch {
	case st.Phase == rollout.PhaseAllAtOnce:
		printLine(w, "no spec.strategy: every change reaches every node at once")
		printLine(w, fmt.Sprintf("configuration %s: put in force for every node at once", target))
	case st.StrategyInvalid:
		printLine(w, fmt.Sprintf("configuration %s: %d steps taken, started %s; held until spec.strategy is valid",
			target, st.Step, started))
	default:
		printLine(w, fmt.Sprintf("configuration %s: step %d of %d (step size %d), started %s",
			target, st.Step, st.Steps, st.StepSize, started))
	}
	if st.Phase != rollout.PhaseAllAtOnce {
		s.writeProgress(w)
	}
	writeWithheld(w, st)
	on := "the controller's status on " + nodeSLORolloutName(s.ConfigMap)
	if n := s.Revision(); n > 0 {
		on += fmt.Sprintf("; revision %d in force", n)
	}
	printLine(w, fmt.Sprintf("updated: %s (%s)", timeText(st.Updated), on))
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
	printLine(w, "paused: "+s.pausedBy())
	s.writeVerdicts(w)
	s.writeBefore(w)
	switch {
	case st.Phase == rollout.PhaseHalted:
	case st.Phase == rollout.PhaseCompleted:
		printLine(w, "complete: every node has the configuration in force, since "+timeText(st.Completed))
	case st.NextStep != nil:
		printLine(w, "next step: "+timeText(st.NextStep))
	case st.AwaitingWrites:
		printLine(w, fmt.Sprintf("next step: an interval after the NodeSLOs of step %d are all written "+
			"(some are not yet)", st.Step))
	case st.Phase == rollout.PhaseProgressing && st.Step >= st.Steps:
		printLine(w, "complete: once the NodeSLOs of the last step are written")
	}
}

// pausedBy is the value of the "paused:" line: "no", or "yes" and every
// reason the rollout is held. A pause the status reports is said to come
// from spec.paused when spec.paused is still true (the status was decided
// on it), and shows as a bare "paused" otherwise; resume lifts it.
func (s RolloutStatus) pausedBy() string {
	st := s.Status
	var why []string
	if st.Phase == rollout.PhaseHalted {
		why = append(why, "halted by the health gate")
	}
	if st.StrategyInvalid {
		why = append(why, "spec.strategy is invalid")
	}
	if st.Paused {
		by := len(why)
		if s.Object.Spec.Paused {
			why = append(why, "spec.paused: true")
		}
		if len(why) == by {
			why = append(why, "paused")
		}
	}
	if len(why) == 0 {
		return "no"
	}
	return "yes (" + strings.Join(why, "; ") + ")"
}

// timeText is t as the status lines print times (RFC 3339, UTC); a time the
// status does not hold prints as the zero time, as the status never leaves
// one out where a line needs it.
func timeText(t *metav1.Time) string {
	if t == nil {
		return time.Time{}.Format(time.RFC3339)
	}
	return t.UTC().Format(time.RFC3339)
}
