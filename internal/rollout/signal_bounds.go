package rollout

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Bounds of what a Node's own status puts into the rollout's record
// (docs/deploy.md#least-privilege). Whoever may write a Node's status
// chooses its conditions' strings; the record that repeats them lives in
// the NodeSLORollout's status, whose record field the CRD caps at 256 KiB.
// A record over it fails the status patch, and a plan whose record is not
// written holds every pending node: unbounded, one Node status writer
// would freeze every gated rollout.
const (
	// MaxConditionStatus bounds a watched condition's status as a signal
	// repeats it: the API's own values (True, False, Unknown) are a few bytes.
	MaxConditionStatus = 64
	// maxSignal bounds one node's signal in the record (its verdict, or the
	// bad conditions it showed before its write, five of them whole). With
	// maxVerdictsKept + maxBeforeKept nodes of names of 253 bytes at most,
	// the signals keep the record under 160 KiB.
	maxSignal = 256
)

// ConditionStatusText is a condition's status as a signal repeats it: whole
// when it is one of the API's values, cut at MaxConditionStatus otherwise,
// saying so. A cut status is never "True", so it reads as bad or good
// exactly as the status it was cut from (ConditionBad).
func ConditionStatusText(s corev1.ConditionStatus) corev1.ConditionStatus {
	return corev1.ConditionStatus(sloconfig.CutAt(string(s), MaxConditionStatus))
}

// boundedSignal is signal as the record keeps it, cut at maxSignal. A cut
// signal of bad conditions seen before a write recognises fewer of them
// later (seenBefore): those judged by their times instead, which counts
// what cannot be told, the reading that halts.
func boundedSignal(signal string) string { return sloconfig.CutAt(signal, maxSignal) }
