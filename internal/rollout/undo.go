package rollout

import (
	"maps"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// UndoData is the ConfigMap data with revision to's keys put back: each
// key the controller reads gets the revision's value, or goes when the
// revision has none (its defaults were in force); every other key of the
// ConfigMap is left as it is, and the undo rolls out under the strategy
// in force, like any change.
func UndoData(current map[string]string, to Revision) map[string]string {
	out := maps.Collect(maps.All(current))
	for _, k := range sloconfig.Keys {
		if v, ok := to.Data[string(k)]; ok {
			out[string(k)] = v
		} else {
			delete(out, string(k))
		}
	}
	return out
}

// RevertTo is the revision a health gate's revert of configuration target
// writes back (docs/rollout.md#health-gates), or why there is none: the
// revision in force must be target's and have an earlier configuration,
// and must not itself be a revert (written by revertManager), so that two
// configurations that both hurt never take turns on the nodes.
func RevertTo(revisions []Revision, target, revertManager string) (Revision, string) {
	previous, ok := PreviousRevision(revisions)
	switch {
	case !ok || revisions[len(revisions)-1].Fingerprint != target:
		return Revision{}, "the revision history has no earlier configuration"
	case revisions[len(revisions)-1].ChangedBy == revertManager:
		return Revision{}, "it is itself a revert by the health gate, which is never reverted again"
	}
	return previous, ""
}

// PreviousRevision is the newest revision older than the newest one
// (the configuration in force) whose configuration differs from it: what
// an undo without a number, and a health gate's revert, go back to.
// revisions are sorted oldest first (SortRevisions).
func PreviousRevision(revisions []Revision) (Revision, bool) {
	if len(revisions) == 0 {
		return Revision{}, false
	}
	now := revisions[len(revisions)-1]
	for i := len(revisions) - 2; i >= 0; i-- {
		if revisions[i].Fingerprint != now.Fingerprint {
			return revisions[i], true
		}
	}
	return Revision{}, false
}
