package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
	// writer writes the NodeSLOs whose digest decides, taking the answer
	// as metadata only; nil: the typed client writes every NodeSLO.
	writer *specWriter
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

// errNodeSLOGone: the NodeSLO the cache holds was deleted before it could be
// read whole; the next round, reading the apiserver, creates it.
var errNodeSLOGone = errors.New("the NodeSLO was deleted while being read")

// isWriteRace reports errors that mean "the world changed under us": retried
// with fresh reads, never reported as failures.
func isWriteRace(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) || errors.Is(err, errNodeSLOGone)
}

// sync does one read-decide-write round for node name and returns the
// operation it ended with. NodeSLOs are cached as metadata only
// (docs/behaviour.md#what-the-controller-caches): a NodeSLO whose
// SpecDigestAnnotation vouches for its spec is decided on the digest alone,
// and only the rest (a spec edited by hand or written by another
// controller, a configuration with a Frozen key, a CRD that drops fields)
// is read whole from the apiserver.
func (r *NodeSLOReconciler) sync(
	ctx context.Context, reader client.Reader, cfg *sloconfig.Config, gate *rollout.Gate, name string,
) (string, error) {
	// The Node is only read, so the cache's copy is shared, not copied.
	node, err := getMetadata(ctx, reader, sloconfig.NodeMetadata(), name, client.UnsafeDisableDeepCopy)
	if err != nil {
		return OpGet, err
	}
	stored, err := getMetadata(ctx, reader, sloconfig.NodeSLOMetadata(), name)
	if err != nil {
		return OpGet, err
	}
	if node == nil {
		r.warned.forget(name)
		return r.deleteOrphan(ctx, stored)
	}
	inputs := sloconfig.NodeOf(node)
	if stored == nil {
		return r.create(ctx, cfg, gate, node, inputs)
	}
	if known := sloconfig.StoredSpecDigest(stored); known != "" && r.digestDecides(ctx, cfg) {
		res := r.resolve(cfg, inputs, nil)
		digest := cfg.SpecDigest(&res)
		if digest == known {
			logf.FromContext(ctx).V(1).Info("NodeSLO is up to date")
			r.warnNode(node, res.Warnings, false)
			return OpNoop, nil
		}
		// The stored spec is the one written with digest known, so this
		// write changes it and moves the generation on by one.
		update := &slov1alpha1.NodeSLO{ObjectMeta: stored.ObjectMeta}
		return r.update(ctx, gate, node, inputs, update, res, digest, stored.Generation+1, true, nil)
	}
	whole := &slov1alpha1.NodeSLO{}
	if err := r.apiReader.Get(ctx, client.ObjectKey{Name: name}, whole); err != nil {
		if apierrors.IsNotFound(err) {
			return OpGet, errNodeSLOGone
		}
		return OpGet, fmt.Errorf("reading NodeSLO: %w", err)
	}
	res := r.resolve(cfg, inputs, &whole.Spec)
	upToDate, missing, err := r.upToDate(ctx, whole, &res.Spec)
	if err != nil {
		return OpUpdate, err
	}
	if upToDate {
		logf.FromContext(ctx).V(1).Info("NodeSLO is up to date")
		r.warnNode(node, res.Warnings, false)
		return OpNoop, nil
	}
	stores, digest := r.storedForm(cfg, &res)
	generation := whole.Generation
	if !sloconfig.SpecEqual(&whole.Spec, stores) {
		generation++
	}
	return r.update(ctx, gate, node, inputs, whole, res, digest, generation, false, missing)
}

// storedForm returns what the apiserver stores when res is written (its spec
// without the fields the installed CRD is known to drop) and its digest,
// which the write's SpecDigestAnnotation names: once the CRD is upgraded
// and stores those fields, the digest no longer matches, and the node is
// written again to get them.
func (r *NodeSLOReconciler) storedForm(
	cfg *sloconfig.Config, res *sloconfig.Resolution,
) (*slov1alpha1.NodeSLOSpec, string) {
	if dropped := r.skew.Dropped(); len(dropped) > 0 {
		without := sloconfig.WithoutPaths(&res.Spec, dropped)
		return &without, sloconfig.SpecDigest(&without)
	}
	return &res.Spec, cfg.SpecDigest(res)
}

// digestDecides reports whether a NodeSLO's digest can stand for its spec
// under cfg: no key is Frozen (resolving would read the stored spec), and
// the whole configuration was dry-run and the installed CRD drops none of
// its fields (docs/behaviour.md#crd-version-skew), so that the spec stored
// is the spec sent.
func (r *NodeSLOReconciler) digestDecides(ctx context.Context, cfg *sloconfig.Config) bool {
	return !cfg.ReadsStoredSpec() && r.probeConfig(ctx, cfg) && len(r.skew.Dropped()) == 0
}

// deleteOrphan deletes the NodeSLO of a node that is gone, if there is one.
func (r *NodeSLOReconciler) deleteOrphan(ctx context.Context, stored *metav1.PartialObjectMetadata) (string, error) {
	if stored == nil {
		return OpNoop, nil
	}
	// The UID precondition keeps a NodeSLO recreated meanwhile (for a new
	// node of the same name) from being deleted by this stale decision.
	err := r.client.Delete(ctx, stored, client.Preconditions{UID: &stored.UID})
	if client.IgnoreNotFound(err) != nil {
		return OpDelete, fmt.Errorf("deleting NodeSLO of a node that is gone: %w", err)
	}
	logf.FromContext(ctx).Info("Deleted the NodeSLO of a node that is gone")
	return OpDelete, nil
}

// create creates the NodeSLO of a node that has none.
func (r *NodeSLOReconciler) create(ctx context.Context, cfg *sloconfig.Config, gate *rollout.Gate,
	node *metav1.PartialObjectMetadata, inputs sloconfig.Node,
) (string, error) {
	res := r.resolve(cfg, inputs, nil)
	created := &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: node.Name}}
	vouched := r.digestDecides(ctx, cfg) // and the digest leaves out what the CRD drops
	_, digest := r.storedForm(cfg, &res)
	sent := stampSpecWritten(&created.ObjectMeta, 1, digest)
	r.own.writing(node.Name, sent)
	if err := r.write(ctx, created, res, true, vouched, nil); err != nil {
		r.own.forget(node.Name)
		return OpCreate, fmt.Errorf("creating NodeSLO: %w", err)
	}
	r.own.wrote(node.Name, created.ResourceVersion)
	logf.FromContext(ctx).Info("Created NodeSLO")
	r.afterWrite(gate, node, res)
	return OpCreate, nil
}

// update writes res's spec over the NodeSLO obj (its metadata as read,
// resourceVersion included, so that a write over a newer NodeSLO
// conflicts), unless a staged rollout holds the node. generation is the
// generation the write gives the NodeSLO, digest that of the spec sent;
// vouched says the digest decided; missing are the fields the stored spec
// lacked, when it was read.
func (r *NodeSLOReconciler) update(
	ctx context.Context, gate *rollout.Gate, node *metav1.PartialObjectMetadata, inputs sloconfig.Node,
	obj *slov1alpha1.NodeSLO, res sloconfig.Resolution, digest string, generation int64, vouched bool,
	missing []string,
) (string, error) {
	if gate.Holds(inputs, obj.Generation) {
		// A staged rollout has not reached this node yet (docs/rollout.md).
		logf.FromContext(ctx).V(1).Info("NodeSLO held by the rollout in progress")
		return OpHeld, nil
	}
	sent := stampSpecWritten(&obj.ObjectMeta, generation, digest)
	r.own.writing(node.Name, sent)
	if err := r.write(ctx, obj, res, false, vouched, missing); err != nil {
		r.own.forget(node.Name)
		return OpUpdate, fmt.Errorf("updating NodeSLO: %w", err)
	}
	r.own.wrote(node.Name, obj.ResourceVersion)
	logf.FromContext(ctx).Info("Updated NodeSLO", "generation", obj.Generation)
	if obj.Generation != generation {
		// The digest does not vouch for this spec: the next decision reads it whole.
		logf.FromContext(ctx).V(1).Info("NodeSLO stored at another generation than its digest names",
			"expected", generation)
	}
	r.afterWrite(gate, node, res)
	return OpUpdate, nil
}

// write creates (create) or updates obj with res's spec. When the digest
// decides (vouched), the answer is taken as metadata only (specWriter): the
// configuration's dry run already showed the CRD stores all of it.
// Otherwise the typed client decodes the stored object, and what it lacks
// of the spec sent teaches which fields the CRD drops.
func (r *NodeSLOReconciler) write(ctx context.Context, obj *slov1alpha1.NodeSLO, res sloconfig.Resolution,
	create, vouched bool, missing []string,
) error {
	if vouched && r.writer != nil {
		obj.Spec = res.Spec // only encoded: nothing writes into the Config's memory
		send := r.writer.update
		if create {
			send = r.writer.create
		}
		stored, err := send(ctx, obj)
		if err != nil {
			return err
		}
		obj.ResourceVersion, obj.Generation = stored.ResourceVersion, stored.Generation
		return nil
	}
	obj.Spec = *res.Spec.DeepCopy() // the client decodes the answer into it
	var err error
	if create {
		err = r.client.Create(ctx, obj)
	} else {
		err = r.client.Update(ctx, obj)
	}
	if err != nil {
		return err
	}
	r.learned(ctx, r.skew.learn(&res.Spec, &obj.Spec, missing))
	return nil
}

// afterWrite tells the rollout that a node it holds was written, and
// records the node's warnings.
func (r *NodeSLOReconciler) afterWrite(
	gate *rollout.Gate, node *metav1.PartialObjectMetadata, res sloconfig.Resolution,
) {
	if gate.Has(node.Name) {
		select {
		case r.released <- event.GenericEvent{Object: &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: node.Name}}}:
		default: // a signal is pending; the decision it causes sees this write too
		}
	}
	r.warnNode(node, res.Warnings, true)
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

// getMetadata reads the metadata of the object of name into empty (a
// PartialObjectMetadata of the kind wanted); nil when there is none.
func getMetadata(
	ctx context.Context, reader client.Reader, empty *metav1.PartialObjectMetadata, name string,
	opts ...client.GetOption,
) (*metav1.PartialObjectMetadata, error) {
	if err := reader.Get(ctx, client.ObjectKey{Name: name}, empty, opts...); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading %s: %w", empty.Kind, err)
	}
	return empty, nil
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
	slos := sloconfig.NodeSLOMetadataList()
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
		For(&slov1alpha1.NodeSLO{}, builder.OnlyMetadata,
			builder.WithPredicates(configurationLoaded(r.store), nodeSLOSpecChanged(), r.own.notEcho())).
		Watches(&corev1.Node{}, &handler.EnqueueRequestForObject{},
			builder.OnlyMetadata, builder.WithPredicates(configurationLoaded(r.store), nodeInputsChanged())).
		WatchesRawSource(source.Channel(configChanged, handler.EnqueueRequestsFromMapFunc(r.everyNode))).
		WatchesRawSource(source.Channel(reached, &handler.EnqueueRequestForObject{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: maxConcurrent}).
		Complete(r)
}

// stampSpecWritten sets on a NodeSLO about to be written the time of the
// write (the health gate counts only what went wrong on a node after it was
// reached, docs/rollout.md#health-gates) and the digest of the spec sent
// with the generation the write gives it (sloconfig.SpecDigestAnnotation).
// It returns the digest annotation's value, by which the write's echo is known.
func stampSpecWritten(meta *metav1.ObjectMeta, generation int64, digest string) string {
	annotations := make(map[string]string, len(meta.Annotations)+2)
	maps.Copy(annotations, meta.Annotations) // the cache shares equal maps: never write into one
	annotations[rollout.SpecWrittenAnnotation] = rollout.FormatWrittenAt(time.Now())
	sent := sloconfig.FormatSpecDigest(generation, digest)
	annotations[sloconfig.SpecDigestAnnotation] = sent
	meta.Annotations = annotations
	return sent
}
