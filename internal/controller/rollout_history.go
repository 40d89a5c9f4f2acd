package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The rollout controller's revision history
// (docs/rollout.md#revision-history-and-undo): internal/rollout decides
// what the history needs (KeepHistory, Progress); this file reads and
// writes the ControllerRevisions. The history is read past the cache, and
// only when the configuration in force changed (or after a restart): the
// manager keeps no informer of ControllerRevisions.

// revisionInForce is what the controller last wrote of the revision in
// force; a reconcile whose configuration and outcome match it writes nothing.
type revisionInForce struct {
	fingerprint, name string
	number            int64
	outcome           rollout.Outcome
	reached           int
	// keptFor are the held configurations whose revisions the history
	// keeps beyond its limit (rollout.HistoryChange.KeptFor).
	keptFor []string
}

// keepHistory records cfg in the history when it is not the newest
// revision there yet, prunes it again once a configuration it kept beyond
// its limit is in force for no held node (held: their fingerprints), and
// keeps the outcome of the revision in force in
// step with the rollout's figures (nil: no strategy), written only
// when it changed.
func (r *NodeSLORolloutReconciler) keepHistory(
	ctx context.Context, read rolloutRead, cfg loaded, figures *rollout.Figures, held []string,
) error {
	fingerprint := cfg.cfg.Fingerprint()
	if r.history.fingerprint != fingerprint || rollout.HeldReleased(r.history.keptFor, held) {
		if err := r.recordRevision(ctx, read, cfg, held); err != nil {
			return err
		}
	}
	if r.history.name == "" {
		return nil // No revision in force (a frozen key).
	}
	outcome, reached := r.history.outcome, r.history.reached
	switch {
	case outcome.Final(): // nothing more can happen to it
	case read.rollout.Present && figures == nil: // no plan this reconcile: nothing new to say
	case read.rollout.Present:
		outcome, reached = rollout.Progress(figures)
	default:
		// Without a strategy any more, the rest of the rollout went at once: done.
		outcome = rollout.OutcomeCompleted
	}
	if outcome == r.history.outcome && reached == r.history.reached {
		return nil
	}
	change := rollout.OutcomeChange{Name: r.history.name, Outcome: outcome, Reached: reached}
	if err := r.setOutcome(ctx, change); err != nil {
		return err
	}
	r.history.outcome, r.history.reached = outcome, reached
	return nil
}

// recordRevision lists the history, and creates, marks and prunes
// revisions as rollout.KeepHistory decides.
// held are the configurations in force for the nodes the rollout holds,
// whose revisions are kept (rollout.InForce.Held).
func (r *NodeSLORolloutReconciler) recordRevision(
	ctx context.Context, read rolloutRead, cfg loaded, held []string,
) error {
	existing, err := r.listRevisions(ctx)
	if err != nil {
		return err
	}
	data, representable := cfg.cfg.DataInForce()
	now := rollout.InForce{
		Fingerprint: cfg.cfg.Fingerprint(), Data: data, Representable: representable,
		ConfigMapVersion: read.version, RolloutKey: read.rollout.Raw, Held: held,
	}
	change := rollout.KeepHistory(existing, now, read.rollout.RevisionHistoryLimit())
	if change.Create != nil {
		if change.Create.ChangedBy, err = r.lastWriter(ctx, read); err != nil {
			return err
		}
		change.Create.ChangeCause = read.cm.Annotations[rollout.ChangeCauseAnnotation]
		if cfg.revertOf != "" {
			// Put in force by the health gate, not by who wrote the ConfigMap.
			change.Create.ChangedBy, change.Create.ChangeCause = revertFieldManager, cfg.changeCause
		}
		obj := change.Create.Object(r.key)
		if err := r.client.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("recording revision %d of ConfigMap %s: %w", change.Create.Number, r.key, err)
		}
		existing = append(existing, *change.Create)
		existing[len(existing)-1].Name = obj.Name
	}
	for _, o := range change.Outcomes {
		if err := r.setOutcome(ctx, o); err != nil {
			return err
		}
	}
	for _, name := range change.Delete {
		obj := &appsv1.ControllerRevision{}
		obj.Namespace, obj.Name = r.key.Namespace, name
		if err := r.client.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("pruning revision %s of ConfigMap %s: %w", name, r.key, err)
		}
	}
	r.keepHistoryConfigs(existing)
	// The revision in force is the newest, which pruning never deletes.
	r.history = revisionInForce{fingerprint: now.Fingerprint}
	if n := len(existing); n > 0 && representable && existing[n-1].Fingerprint == now.Fingerprint {
		newest := existing[n-1]
		r.history = revisionInForce{fingerprint: newest.Fingerprint, name: newest.Name, number: newest.Number,
			outcome: newest.Outcome, reached: newest.Reached}
	}
	r.history.keptFor = change.KeptFor
	return nil
}

// keepHistoryConfigs keeps the configurations of revisions, newest first,
// loading only those not kept already, and the number of each one's newest
// revision.
func (r *NodeSLORolloutReconciler) keepHistoryConfigs(revisions []rollout.Revision) {
	r.historyNumbers = make(map[string]int64, len(revisions))
	for _, rev := range revisions {
		r.historyNumbers[rev.Fingerprint] = max(r.historyNumbers[rev.Fingerprint], rev.Number)
	}
	known := make(map[string]*sloconfig.Config, len(r.historyConfigs))
	for _, cfg := range r.historyConfigs {
		known[cfg.Fingerprint()] = cfg
	}
	out := make([]*sloconfig.Config, 0, len(revisions))
	for _, rev := range slices.Backward(revisions) {
		cfg, ok := known[rev.Fingerprint]
		if !ok {
			if cfg = sloconfig.Load(rev.Data, nil); cfg.Fingerprint() != rev.Fingerprint {
				continue // not what the revision says it is (a key frozen when it was recorded)
			}
			known[rev.Fingerprint] = cfg
		}
		out = append(out, cfg)
	}
	r.historyConfigs = out
}

// listRevisions reads the ConfigMap's history from the apiserver.
func (r *NodeSLORolloutReconciler) listRevisions(ctx context.Context) ([]rollout.Revision, error) {
	list := &appsv1.ControllerRevisionList{}
	if err := r.apiReader.List(ctx, list, client.InNamespace(r.key.Namespace),
		client.MatchingLabels{rollout.RevisionConfigMapLabel: r.key.Name}); err != nil {
		return nil, fmt.Errorf("listing the revisions of ConfigMap %s: %w", r.key, err)
	}
	out := make([]rollout.Revision, 0, len(list.Items))
	for i := range list.Items {
		rev, err := rollout.RevisionOf(&list.Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, rev)
	}
	rollout.SortRevisions(out)
	return out, nil
}

// recordFieldManager is the field manager of the rollout record's
// annotation on the ConfigMap in versions before the NodeSLORollout: the
// revision history still never takes it for who changed the data.
const recordFieldManager = "nodeslo-controller"

// lastWriter names who last wrote the ConfigMap. The cache strips
// managedFields, so the ConfigMap is read again past it.
func (r *NodeSLORolloutReconciler) lastWriter(ctx context.Context, read rolloutRead) (string, error) {
	if !read.exists {
		return "", nil
	}
	cm := &corev1.ConfigMap{}
	if err := r.apiReader.Get(ctx, r.key, cm); err != nil {
		return "", client.IgnoreNotFound(err)
	}
	return rollout.LastWriter(cm.ManagedFields, recordFieldManager), nil
}

// setOutcome patches a revision's outcome annotations, and its status
// annotation when the change has one.
func (r *NodeSLORolloutReconciler) setOutcome(ctx context.Context, o rollout.OutcomeChange) error {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"annotations": o.Annotations()}})
	obj := &appsv1.ControllerRevision{}
	obj.Namespace, obj.Name = r.key.Namespace, o.Name
	err := r.client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch))
	if client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("setting the outcome of revision %s of ConfigMap %s: %w", o.Name, r.key, err)
	}
	return nil
}
