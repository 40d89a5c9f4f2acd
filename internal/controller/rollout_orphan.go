package controller

import (
	"context"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// orphanRollout is how a deleted ConfigMap is rolled out
// (docs/rollout.md#the-configmap-deleted): every node goes back to the
// defaults, which is a change like any other, so it goes under the rollout
// key the ConfigMap had, not at once. The key is remembered from the last
// read of the ConfigMap, or, after a restart, taken from the revision in
// force, which keeps the key it was rolled out under. The record stays on
// the NodeSLORollout, which outlives the ConfigMap.
type orphanRollout struct {
	// key is the rollout key of the ConfigMap when last read; known says
	// whether it was read (or taken from the history) since the start.
	key   string
	known bool
}

// keep remembers the rollout key of a ConfigMap read.
func (o *orphanRollout) keep(read configMapRead) {
	o.key, o.known = read.rolloutKey, true
}

// orphanRolloutKey is the rollout key a ConfigMap that does not exist is
// reset under: the one it had, or, after a restart, the one of the revision
// in force.
func (d *rolloutDriver) orphanRolloutKey(ctx context.Context) (string, error) {
	if d.orphan.known {
		return d.orphan.key, nil
	}
	revisions, err := d.listRevisions(ctx)
	if err != nil || len(revisions) == 0 {
		return "", err
	}
	return revisions[len(revisions)-1].RolloutKey, nil
}

// rolloutData is the data whose rollout key a reconcile loads: the
// ConfigMap's, or the key a deleted one had.
func rolloutData(data map[string]string, key string, exists bool) map[string]string {
	if exists {
		return data
	}
	return map[string]string{string(sloconfig.KeyRollout): key}
}
