package rollout

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxKeyBytes bounds the strategy's JSON (StrategyJSON)
// (docs/rollout.md#the-strategy). Every revision of the history keeps
// the strategy it rolled out under in an annotation, and a ControllerRevision's
// annotations may hold 256 KiB in all: a larger strategy would fail every
// revision's create, and with it the history, undo, and a revert after a
// restart. The largest strategy the bounds allow (ten metric checks of 4 KiB
// queries, the gate's lists full) is under a third of this.
const MaxKeyBytes = 128 << 10

// keyTooLarge is the error of a strategy over MaxKeyBytes, or nil.
func keyTooLarge(raw string) *field.Error {
	if len(raw) <= MaxKeyBytes {
		return nil
	}
	return &field.Error{Type: field.ErrorTypeTooLong, BadValue: field.OmitValueType{}, Detail: fmt.Sprintf(
		"the value is %d bytes, more than the %d allowed; "+
			"the history keeps it in each revision's annotations", len(raw), MaxKeyBytes)}
}

// keptKey is the strategy's JSON as a revision keeps it: the JSON itself,
// or for one over MaxKeyBytes a stand-in that says so. Like the strategy
// it stands for, the stand-in is invalid.
func keptKey(raw string) string {
	if keyTooLarge(raw) == nil {
		return raw
	}
	return fmt.Sprintf("(not kept: the strategy was %d bytes, more than the %d allowed)", len(raw), MaxKeyBytes)
}
