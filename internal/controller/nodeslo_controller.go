package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
)

// raceRetryDelay is how long a reconcile that kept losing write races waits
// before trying again; such races end as soon as the cache catches up.
const raceRetryDelay = time.Second

// NodeSLOReconciler keeps the NodeSLO named after a node equal to the spec
// the configuration in force resolves for that node
// (docs/behaviour.md#lifecycle).
type NodeSLOReconciler struct {
	// cache reads Nodes and NodeSLOs from the manager's cache (metadata
	// only); live reads them from the apiserver after a write race.
	cache, live client.Reader
	snapshots   *snapshots
	stored      *storedslo.Store
	recorder    events.EventRecorder
	warned      warningMemory
	// heldNodeWritten tells the rollout controller that a node the
	// rollout's gate held was written (its inputs changed), so that the
	// rollout's counts follow; its buffer of one coalesces such signals.
	heldNodeWritten chan<- event.GenericEvent
	// before is Options.BeforeNodeSLOReconcile (nil: none).
	before func(ctx context.Context, node string)
}

// Reconcile creates, updates or deletes the NodeSLO of one node.
func (r *NodeSLOReconciler) Reconcile(ctx context.Context, req reconcile.Request) (ctrl.Result, error) {
	if r.before != nil {
		r.before(ctx, req.Name)
	}
	snap := r.snapshots.load()
	if snap == nil {
		// Every node is reconciled once the configuration is loaded.
		countReconcile(OpSkip, nil)
		return ctrl.Result{}, nil
	}
	ctx = logf.IntoContext(ctx, logf.FromContext(ctx).WithValues("node", req.Name))

	// The first attempt reads the cache; after a conflict (someone else wrote
	// in between, or the cache lagged behind our own write) read the apiserver.
	reader := r.cache
	var op string
	err := retry.OnError(retry.DefaultRetry, isWriteRace, func() error {
		var err error
		op, err = r.sync(ctx, reader, snap, req.Name)
		reader = r.live
		return err
	})
	countReconcile(op, err)
	if isWriteRace(err) {
		logf.FromContext(ctx).V(1).Info("Write kept conflicting; retrying later", "operation", op, "error", err.Error())
		return ctrl.Result{RequeueAfter: raceRetryDelay}, nil
	}
	return ctrl.Result{}, err
}

// isWriteRace reports errors that mean "the world changed under us": retried
// with fresh reads, never reported as failures.
func isWriteRace(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) || errors.Is(err, storedslo.ErrGone)
}

// sync does one read-decide-write round for node name, reading through
// reader, and returns the operation it ended with: read the Node and what
// is stored, resolve what the NodeSLO should hold, stop if it holds that
// or the rollout holds the node back, else write it.
func (r *NodeSLOReconciler) sync(
	ctx context.Context, reader client.Reader, snap *Snapshot, name string,
) (string, error) {
	node, err := getNode(ctx, reader, name)
	if err != nil {
		return OpGet, err
	}
	stored, err := r.stored.Get(ctx, reader, name, snap.Config.ReadsStoredSpec())
	if err != nil {
		return OpGet, err
	}
	if node == nil {
		return r.deleteOrphan(ctx, stored)
	}
	choice := snap.choose(sloconfig.NodeOf(node), stored)
	switch choice.Action {
	case rollout.NodeUpToDate:
		logf.FromContext(ctx).V(1).Info("NodeSLO is up to date")
		r.warnNode(node, choice.Resolution.Warnings, false)
		return OpNoop, nil
	case rollout.NodeHeld:
		logf.FromContext(ctx).V(1).Info("NodeSLO held by the rollout in progress") // docs/rollout.md
		return OpHeld, nil
	}
	op := writeOp(stored)
	from := storedslo.FormatConfiguration(rollout.ShortTarget(choice.From.Fingerprint()), snap.Revision)
	if err := r.stored.Write(ctx, stored, &choice.Resolution.Spec, choice.Want, from, snap.Decided); err != nil {
		return op, err
	}
	r.afterWrite(snap.Gate, node, choice.Resolution)
	return op, nil
}

// deleteOrphan deletes the NodeSLO of a node that is gone, if there is one.
func (r *NodeSLOReconciler) deleteOrphan(ctx context.Context, stored *storedslo.NodeSLO) (string, error) {
	r.warned.forget(stored.Name())
	if deleted, err := r.stored.Delete(ctx, stored); deleted || err != nil {
		return OpDelete, err
	}
	return OpNoop, nil
}

// writeOp is the operation a write of stored is.
func writeOp(stored *storedslo.NodeSLO) string {
	if stored.Exists() {
		return OpUpdate
	}
	return OpCreate
}

// afterWrite tells the rollout controller that a node the rollout
// held was written, and records the node's warnings.
func (r *NodeSLOReconciler) afterWrite(
	gate *rollout.Gate, node *metav1.PartialObjectMetadata, res sloconfig.Resolution,
) {
	if gate.Has(node.Name) {
		trySignal(r.heldNodeWritten, nodeEvent(node.Name)) // a pending signal's decision sees this write too
	}
	r.warnNode(node, res.Warnings, true)
}

// warnNode records the node's warnings as Events on the Node when its
// NodeSLO was just written or the warnings differ from those last recorded,
// so that a resync or an unrelated reconcile repeats none. Warnings of one
// reason share one Event: the recorder folds Events with the same object,
// reason and action into a series that keeps only the first note.
func (r *NodeSLOReconciler) warnNode(node *metav1.PartialObjectMetadata, warnings []sloconfig.NodeWarning, wrote bool) {
	if !r.warned.remember(node.Name, warnings) && !wrote {
		return
	}
	// A typed stub is enough for the Event's reference and avoids caching full
	// Nodes; its resourceVersion starts a new series when the Node changed.
	regarding := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: node.Name, UID: node.UID, ResourceVersion: node.ResourceVersion,
	}}
	var reasons []string
	byReason := map[string][]string{}
	for _, w := range warnings {
		if _, seen := byReason[w.Reason]; !seen {
			reasons = append(reasons, w.Reason)
		}
		byReason[w.Reason] = append(byReason[w.Reason], w.Message)
	}
	for _, reason := range reasons {
		note := sloconfig.EventNote(byReason[reason], "")
		r.recorder.Eventf(regarding, nil, corev1.EventTypeWarning, reason, "Resolve", "%s", note)
	}
}

// getNode reads the metadata of the Node name; nil when there is none. The
// Node is only read, so the cache's copy is shared, not copied.
func getNode(ctx context.Context, reader client.Reader, name string) (*metav1.PartialObjectMetadata, error) {
	node := sloconfig.NodeMetadata()
	if err := reader.Get(ctx, client.ObjectKey{Name: name}, node, client.UnsafeDisableDeepCopy); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading Node: %w", err)
	}
	return node, nil
}

// everyNode maps a change of the Snapshot to one request per Node, plus one
// per NodeSLO whose Node is gone (it went away while the configuration was
// not loaded yet and must still be deleted). Each name is asked for once, so
// that a worker picking a node up between two requests for it cannot
// reconcile it twice. It reads names only, so it lists the cache without
// copying.
func (r *NodeSLOReconciler) everyNode(ctx context.Context, _ client.Object) []reconcile.Request {
	log := logf.FromContext(ctx)
	nodes := sloconfig.NodeMetadataList()
	if err := r.cache.List(ctx, nodes, client.UnsafeDisableDeepCopy); err != nil {
		log.Error(err, "Cannot list Nodes to reconcile after a configuration change")
	}
	slos := sloconfig.NodeSLOMetadataList()
	if err := r.cache.List(ctx, slos, client.UnsafeDisableDeepCopy); err != nil {
		log.Error(err, "Cannot list NodeSLOs to reconcile after a configuration change")
	}
	names := sets.New[string]()
	reqs := make([]reconcile.Request, 0, len(nodes.Items))
	for i := range nodes.Items {
		names.Insert(nodes.Items[i].Name)
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKey{Name: nodes.Items[i].Name}})
	}
	for i := range slos.Items {
		if !names.Has(slos.Items[i].Name) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKey{Name: slos.Items[i].Name}})
		}
	}
	return reqs
}

// setupWithManager registers the controller with its four triggers: Node
// metadata changes that matter, NodeSLO spec changes and deletes, a change
// of the Snapshot that concerns every node, and the nodes a rollout step
// released.
func (r *NodeSLOReconciler) setupWithManager(mgr ctrl.Manager, s signals, maxConcurrent int) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(NodeSLOController).
		// NodeSLO creates, deletes and spec changes (a generation bump) pass, so that a hand edit is
		// put back and a deleted NodeSLO recreated, while metadata-only and status updates are
		// dropped. The echoes of the controller's own writes are dropped by the Store's NotEcho.
		For(&slov1alpha1.NodeSLO{}, builder.OnlyMetadata, builder.WithPredicates(
			configurationLoaded(r.snapshots), predicate.GenerationChangedPredicate{}, r.stored.NotEcho())).
		Watches(&corev1.Node{}, &handler.EnqueueRequestForObject{},
			builder.OnlyMetadata, builder.WithPredicates(configurationLoaded(r.snapshots), nodeInputsChanged())).
		WatchesRawSource(source.Channel(s.everyNode, handler.EnqueueRequestsFromMapFunc(r.everyNode))).
		WatchesRawSource(source.Channel(s.releasedNodes, &handler.EnqueueRequestForObject{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: maxConcurrent, RateLimiter: retryBackoff(maxRetryBackoff)}).
		Complete(r)
}
