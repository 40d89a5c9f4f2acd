package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// raceRetryDelay is how long a reconcile that kept losing write races waits
// before trying again; such races end as soon as the cache catches up.
const raceRetryDelay = time.Second

// NodeSLOReconciler keeps the NodeSLO named after a node equal to the spec
// the configuration in force resolves for that node
// (docs/behaviour.md#lifecycle).
type NodeSLOReconciler struct {
	// client reads from the manager's cache (Nodes as metadata only) and writes.
	client client.Client
	// apiReader reads past the cache after a write lost a race with another writer.
	apiReader client.Reader
	store     *Store
	recorder  events.EventRecorder
	warned    warningMemory
	// released tells the config-cache controller that a node the gate
	// held was written (its inputs changed), so that the rollout's counts
	// follow; its buffer of one coalesces such signals.
	released chan<- event.GenericEvent
	// own remembers this controller's writes so that their echoes are dropped.
	own *ownWrites
	// skew is what the writes taught about the fields the installed CRD
	// drops (docs/behaviour.md#crd-version-skew); it is reported on the
	// ConfigMap configKey.
	skew      *crdSkew
	configKey types.NamespacedName
	// reconcileAll asks for every node to be reconciled again (the channel of
	// configuration changes), after the CRD was seen to store fields it dropped.
	reconcileAll chan<- event.GenericEvent
}

// Reconcile creates, updates or deletes the NodeSLO of one node.
func (r *NodeSLOReconciler) Reconcile(ctx context.Context, req reconcile.Request) (ctrl.Result, error) {
	cfg, gate := r.store.Snapshot()
	if cfg == nil {
		// Every node is reconciled once the configuration is loaded.
		countReconcile(OpSkip, nil)
		return ctrl.Result{}, nil
	}
	ctx = logf.IntoContext(ctx, logf.FromContext(ctx).WithValues("node", req.Name))

	// The first attempt reads the cache; after a conflict (someone else wrote
	// in between, or the cache lagged behind our own write) read the apiserver.
	var reader client.Reader = r.client
	var op string
	err := retry.OnError(retry.DefaultRetry, isWriteRace, func() error {
		var err error
		op, err = r.sync(ctx, reader, cfg, gate, req.Name)
		reader = r.apiReader
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
	return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err)
}

// sync does one read-decide-write round for node name and returns the
// operation it ended with.
func (r *NodeSLOReconciler) sync(
	ctx context.Context, reader client.Reader, cfg *sloconfig.Config, gate *rollout.Gate, name string,
) (string, error) {
	log := logf.FromContext(ctx)

	node, err := getNodeMetadata(ctx, reader, name)
	if err != nil {
		return OpGet, err
	}
	stored := &slov1alpha1.NodeSLO{}
	if err := reader.Get(ctx, client.ObjectKey{Name: name}, stored); err != nil {
		if !apierrors.IsNotFound(err) {
			return OpGet, fmt.Errorf("reading NodeSLO: %w", err)
		}
		stored = nil
	}

	if node == nil {
		r.warned.forget(name)
		if stored == nil {
			return OpNoop, nil
		}
		// The UID precondition keeps a NodeSLO recreated meanwhile (for a new
		// node of the same name) from being deleted by this stale decision.
		err := r.client.Delete(ctx, stored, client.Preconditions{UID: &stored.UID})
		if client.IgnoreNotFound(err) != nil {
			return OpDelete, fmt.Errorf("deleting NodeSLO of a node that is gone: %w", err)
		}
		log.Info("Deleted the NodeSLO of a node that is gone")
		return OpDelete, nil
	}

	var current *slov1alpha1.NodeSLOSpec
	if stored != nil {
		current = &stored.Spec
	}
	inputs := sloconfig.NodeOf(node)
	res := r.resolve(cfg, inputs, current)

	var op string
	if stored == nil {
		op = OpCreate
		created := &slov1alpha1.NodeSLO{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       *res.Spec.DeepCopy(), // the resolved spec shares memory with the Config
		}
		stampSpecWritten(&created.ObjectMeta)
		r.own.writing(name, &res.Spec)
		if err := r.client.Create(ctx, created); err != nil {
			r.own.forget(name)
			return op, fmt.Errorf("creating NodeSLO: %w", err)
		}
		r.own.wrote(name, created.ResourceVersion)
		log.Info("Created NodeSLO")
		// The answer is what was stored: it shows the fields the CRD drops.
		r.learned(ctx, r.skew.learn(&res.Spec, &created.Spec, nil))
	} else {
		upToDate, missing, err := r.upToDate(ctx, stored, &res.Spec)
		if err != nil {
			return OpUpdate, err
		}
		if upToDate {
			log.V(1).Info("NodeSLO is up to date")
			r.warnNode(node, res.Warnings, false)
			return OpNoop, nil
		}
		if gate.Holds(inputs, stored.Generation) {
			// A staged rollout has not reached this node yet (docs/rollout.md).
			log.V(1).Info("NodeSLO held by the rollout in progress")
			return OpHeld, nil
		}
		op = OpUpdate
		stored.Spec = *res.Spec.DeepCopy()
		stampSpecWritten(&stored.ObjectMeta)
		r.own.writing(name, &res.Spec)
		if err := r.client.Update(ctx, stored); err != nil {
			r.own.forget(name)
			return op, fmt.Errorf("updating NodeSLO: %w", err)
		}
		r.own.wrote(name, stored.ResourceVersion)
		log.Info("Updated NodeSLO", "generation", stored.Generation)
		r.learned(ctx, r.skew.learn(&res.Spec, &stored.Spec, missing))
	}
	if gate.Has(name) {
		select {
		case r.released <- event.GenericEvent{Object: &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: name}}}:
		default: // a signal is pending; the decision it causes sees this write too
		}
	}
	r.warnNode(node, res.Warnings, true)
	return op, nil
}

// upToDate reports whether stored holds all of resolved that the installed
// CRD can carry (docs/behaviour.md#crd-version-skew), and returns the
// fields resolved has and stored lacks. When some of those were never seen
// dropped or kept, one dry run tells; when the answer leans on fields seen
// dropped, one dry run per recheck interval checks that the CRD still drops
// them. When that shows the CRD upgraded, the node counts as up to date for
// now: the round over every node that the upgrade starts writes it.
func (r *NodeSLOReconciler) upToDate(
	ctx context.Context, stored *slov1alpha1.NodeSLO, resolved *slov1alpha1.NodeSLOSpec,
) (bool, []string, error) {
	holds, leaned := r.skew.holds(&stored.Spec, resolved)
	if holds && !leaned {
		return true, nil, nil
	}
	missing := sloconfig.DroppedPaths(resolved, &stored.Spec)
	probe := len(missing) > 0 &&
		((holds && r.skew.recheckDue(time.Now())) || (!holds && len(r.skew.unknown(missing)) > 0))
	if !probe {
		return holds, missing, nil
	}
	regained, err := r.dryRunUpdate(ctx, stored, resolved, missing)
	if err != nil {
		return false, missing, err
	}
	if regained {
		// Every node is reconciled again, this one too: it is written then,
		// once, rather than now and again in that round.
		return true, missing, nil
	}
	holds, _ = r.skew.holds(&stored.Spec, resolved)
	return holds, missing, nil
}

// resolve resolves cfg for node and records how long it took.
func (r *NodeSLOReconciler) resolve(cfg *sloconfig.Config, node sloconfig.Node,
	current *slov1alpha1.NodeSLOSpec) sloconfig.Resolution {
	start := time.Now()
	res := cfg.Resolve(node, current)
	resolveSeconds.Observe(time.Since(start).Seconds())
	return res
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

// getNodeMetadata reads a Node's metadata; nil when the Node does not exist.
func getNodeMetadata(ctx context.Context, reader client.Reader, name string) (*metav1.PartialObjectMetadata, error) {
	node := sloconfig.NodeMetadata()
	if err := reader.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading Node: %w", err)
	}
	return node, nil
}

// everyNode maps a configuration change to one request per Node, plus one
// per NodeSLO whose Node is gone (it went away while the configuration was
// not loaded yet and must still be deleted). Each name is asked for once, so
// that a worker picking a node up between two requests for it cannot
// reconcile it twice. It reads names only, so it lists the cache without
// copying.
func (r *NodeSLOReconciler) everyNode(ctx context.Context, _ client.Object) []reconcile.Request {
	log := logf.FromContext(ctx)
	nodes := sloconfig.NodeMetadataList()
	if err := r.client.List(ctx, nodes, client.UnsafeDisableDeepCopy); err != nil {
		log.Error(err, "Cannot list Nodes to reconcile after a configuration change")
	}
	slos := &slov1alpha1.NodeSLOList{}
	if err := r.client.List(ctx, slos, client.UnsafeDisableDeepCopy); err != nil {
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
// metadata changes that matter, NodeSLO spec changes and deletes, the
// configuration-changed signal, and the nodes a rollout step reached.
func (r *NodeSLOReconciler) setupWithManager(mgr ctrl.Manager, configChanged, reached <-chan event.GenericEvent,
	maxConcurrent int) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("nodeslo").
		For(&slov1alpha1.NodeSLO{},
			builder.WithPredicates(configurationLoaded(r.store), nodeSLOSpecChanged(), r.own.notEcho())).
		Watches(&corev1.Node{}, &handler.EnqueueRequestForObject{},
			builder.OnlyMetadata, builder.WithPredicates(configurationLoaded(r.store), nodeInputsChanged())).
		WatchesRawSource(source.Channel(configChanged, handler.EnqueueRequestsFromMapFunc(r.everyNode))).
		WatchesRawSource(source.Channel(reached, &handler.EnqueueRequestForObject{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: maxConcurrent}).
		Complete(r)
}

// stampSpecWritten sets the time of this spec write on the NodeSLO: the
// health gate counts only what went wrong on a node after it was reached
// (docs/rollout.md#health-gates).
func stampSpecWritten(meta *metav1.ObjectMeta) {
	if meta.Annotations == nil {
		meta.Annotations = map[string]string{}
	}
	meta.Annotations[rollout.SpecWrittenAnnotation] = rollout.FormatWrittenAt(time.Now())
}
