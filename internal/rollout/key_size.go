package rollout

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxKeyBytes bounds the rollout key's value as written, whitespace
// included (docs/rollout.md#the-strategy). Every revision of the history keeps
// the key it rolled out under in an annotation, and a ControllerRevision's
// annotations may hold 256 KiB in all: a larger key would fail every
// revision's create, and with it the history, undo, and a revert after a
// restart. The largest key the bounds allow (ten metric checks of 4 KiB
// queries, the gate's lists full) is under a third of this.
const MaxKeyBytes = 128 << 10

// keyTooLarge is the error of a key over MaxKeyBytes, or nil.
func keyTooLarge(raw string) *field.Error {
	if len(raw) <= MaxKeyBytes {
		return nil
	}
	return &field.Error{Type: field.ErrorTypeTooLong, BadValue: field.OmitValueType{}, Detail: fmt.Sprintf(
		"the value is %d bytes, more than the %d allowed; "+
			"the history keeps it in each revision's annotations", len(raw), MaxKeyBytes)}
}

// keptKey is the rollout key as a revision keeps it: the key itself, or
// for one over MaxKeyBytes a stand-in that says so. Like the key it
// stands for, the stand-in is invalid, which holds every rollout: a
// ConfigMap reset under it (deleted while the manager was down) is held,
// as it would be under the key.
func keptKey(raw string) string {
	if keyTooLarge(raw) == nil {
		return raw
	}
	return fmt.Sprintf("(not kept: the strategy was %d bytes, more than the %d allowed)", len(raw), MaxKeyBytes)
}
