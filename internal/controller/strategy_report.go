package controller

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Event reasons on the NodeSLORollout about its spec.strategy.
const (
	// ReasonInvalidStrategy: the controller refuses the strategy (what the
	// schema cannot check, or what the manager's flags do not allow); every
	// rollout is paused until it is fixed.
	ReasonInvalidStrategy = "InvalidStrategy"
	// ReasonStrategyWarning: the strategy is valid but likely not meant.
	ReasonStrategyWarning = "StrategyWarning"
)

// reportStrategy records a Warning Event on the NodeSLORollout per problem
// of its strategy, unless the same were reported last: where the operator
// looks for them (kubectl describe nodeslorollout), whether or not a
// change is pending.
func (r *NodeSLORolloutReconciler) reportStrategy(read rolloutRead) {
	obj := read.object.obj
	if obj == nil {
		r.reportedStrategy = ""
		return
	}
	errs, warnings := read.rollout.Messages(), read.rollout.WarningMessages()
	said := string(obj.UID) + "\x00" + strings.Join(errs, "\x00") + "\x00\x00" + strings.Join(warnings, "\x00")
	if said == r.reportedStrategy {
		return
	}
	r.reportedStrategy = said
	if len(errs) > 0 {
		r.recorder.Eventf(obj, nil, corev1.EventTypeWarning, ReasonInvalidStrategy, "Validate", "%s",
			sloconfig.EventNote(errs, "every rollout is paused until spec.strategy is fixed"))
	}
	if len(warnings) > 0 {
		r.recorder.Eventf(obj, nil, corev1.EventTypeWarning, ReasonStrategyWarning, "Validate", "%s",
			sloconfig.EventNote(warnings, ""))
	}
}
