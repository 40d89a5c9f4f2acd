package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// HealthGateUserAgent ends the user agent of the health gate's requests:
// the only ones of the manager that read Nodes whole, and only while a
// gated rollout is judged.
const HealthGateUserAgent = "health-gate"

// healthSyncTimeout bounds how long one reconcile waits for the health
// watches to list what they watch; past it the reconcile is retried.
const healthSyncTimeout = 30 * time.Second

// healthWatch holds the watches a strategy's health gate needs
// (docs/rollout.md#health-gates): the Nodes' watched conditions and the
// Pods of the gate's Pod selector (health_pods.go). They run only while a
// gated rollout is judged, and keep little: a Node is cut down to its name
// and the conditions of the types watched (type, status, last transition),
// a Pod to its name, node and the times of its evictions; Pods are
// selected by label on the server. A change of what they see is sent on
// changed.
//
// It is a Runnable of the manager: its watches run under the context the
// manager starts it with (on the leader, like the rollout controller
// that asks for them), and Start returns only once every watch has
// stopped, so that no goroutine outlives the manager. The rollout
// controller's one worker calls observe and stop; the lock is for Start.
type healthWatch struct {
	clients kubernetes.Interface
	changed chan<- event.GenericEvent

	// started is closed once Start has set ctx, the manager's context.
	started chan struct{}
	ctx     context.Context //nolint:containedctx // the manager's, for the watches it starts later

	mu sync.Mutex
	// running is the watch in progress (nil: none), for the gate settings
	// it was started with; informers counts its goroutines.
	running   *runningHealthWatch
	informers sync.WaitGroup
}

type runningHealthWatch struct {
	settings string
	cancel   context.CancelFunc
	nodes    toolscache.SharedIndexInformer
	// synced tell when the Node watch has listed and each Pod watch's
	// handler has folded its first list into evictions.
	synced    []toolscache.InformerSynced
	evictions *podEvictions
	// failures keeps the last error of each watch, for the message of a
	// watch that does not list in time.
	failures watchFailures
}

// newHealthWatch makes the clients of the health watches from the
// manager's rest config. Nodes and Pods are built-in kinds, so their
// watches ask for protobuf, which costs less to decode than JSON.
func newHealthWatch(cfg *rest.Config, changed chan<- event.GenericEvent) (*healthWatch, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	cfg.UserAgent += " " + HealthGateUserAgent
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	clients, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("making the health gate's client: %w", err)
	}
	return &healthWatch{clients: clients, changed: changed, started: make(chan struct{})}, nil
}

// Start keeps the watches' context until the manager stops, then stops
// them and waits for their goroutines.
func (w *healthWatch) Start(ctx context.Context) error {
	w.mu.Lock()
	w.ctx = ctx
	close(w.started)
	w.mu.Unlock()
	<-ctx.Done()
	w.stop()
	w.informers.Wait()
	return nil
}

// settingsOf identifies what a watch for gate watches.
func settingsOf(gate *rollout.HealthGate) string {
	return strings.Join(gate.ConditionNames(), ",") + "|" + gate.PodSelector.String() + "|" +
		strings.Join(gate.PodNamespaces, ",")
}

// observe starts the watches for gate when they are not running (or ran
// for other settings), waits until they listed, and returns what they see
// of every node that has a watched condition or an eviction.
func (w *healthWatch) observe(ctx context.Context, gate *rollout.HealthGate) (map[string]rollout.NodeHealth, error) {
	select {
	case <-w.started:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.ctx.Err(); err != nil {
		// The manager is stopping and Start waits for the watches' goroutines:
		// starting one now would race with that wait.
		return nil, fmt.Errorf("the health gate's watches are stopping: %w", err)
	}
	settings := settingsOf(gate)
	if w.running != nil && w.running.settings != settings {
		w.stopLocked()
	}
	if w.running == nil {
		w.running = w.start(gate, settings)
	}
	waitCtx, cancel := context.WithTimeout(ctx, healthSyncTimeout)
	defer cancel()
	if !toolscache.WaitForCacheSync(waitCtx.Done(), w.running.synced...) {
		return nil, fmt.Errorf("the health gate's watches did not list within %s%s",
			healthSyncTimeout, w.running.failures.describe())
	}
	return w.running.snapshot(), nil
}

// stop stops the watches, if any: no gated rollout is judged.
func (w *healthWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopLocked()
}

func (w *healthWatch) stopLocked() {
	if w.running != nil {
		w.running.cancel()
		w.running = nil
		healthWatchedNodes.Set(0)
	}
}

// start starts the Node watch and, in each namespace the manager counts
// Pods in, a Pod watch, whose Pods the apiserver selects by the gate's
// label selector.
func (w *healthWatch) start(gate *rollout.HealthGate, settings string) *runningHealthWatch {
	ctx, cancel := context.WithCancel(w.ctx)
	run := &runningHealthWatch{settings: settings, cancel: cancel, evictions: newPodEvictions()}

	core := w.clients.CoreV1().RESTClient()
	run.nodes = toolscache.NewSharedIndexInformer(
		toolscache.NewListWatchFromClient(core, "nodes", corev1.NamespaceAll, fields.Everything()),
		&corev1.Node{}, 0, toolscache.Indexers{})
	_ = run.nodes.SetTransform(keepWatchedConditions(gate))
	_ = run.nodes.SetWatchErrorHandlerWithContext(run.failures.record("Nodes"))
	_, _ = run.nodes.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { w.notify() },
		UpdateFunc: func(before, after any) { w.notifyIfConditionsChanged(before, after) },
	})
	run.synced = append(run.synced, run.nodes.HasSynced)
	w.run(ctx, run.nodes)

	observe := func(obj any) {
		if pod, ok := obj.(*corev1.Pod); ok && run.evictions.observe(pod) {
			w.notify()
		}
	}
	selector := gate.PodSelector.String()
	for _, namespace := range gate.PodNamespaces {
		pods := toolscache.NewSharedIndexInformer(cutPodsListWatch(core, namespace, selector),
			&corev1.Pod{}, 0, toolscache.Indexers{})
		_ = pods.SetTransform(keepEvictionFacts)
		_ = pods.SetWatchErrorHandlerWithContext(run.failures.record("Pods in namespace " + namespace))
		registration, _ := pods.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    observe,
			UpdateFunc: func(_, after any) { observe(after) },
			DeleteFunc: run.evictions.forget,
		})
		run.synced = append(run.synced, registration.HasSynced)
		w.run(ctx, pods)
	}
	return run
}

// run runs informer until ctx ends, counted so that Start can wait for it.
func (w *healthWatch) run(ctx context.Context, informer toolscache.SharedIndexInformer) {
	w.informers.Go(func() { informer.RunWithContext(ctx) })
}

// notify tells the rollout controller that what the gate judges
// changed; a signal already pending covers this one.
func (w *healthWatch) notify() {
	trySignal(w.changed, event.GenericEvent{Object: &corev1.Node{}})
}

// notifyIfConditionsChanged wakes the controller when a watched condition
// changed status or transition time; heartbeats do not.
func (w *healthWatch) notifyIfConditionsChanged(before, after any) {
	b, okB := before.(*corev1.Node)
	a, okA := after.(*corev1.Node)
	if !okB || !okA || !slices.EqualFunc(b.Status.Conditions, a.Status.Conditions, sameCondition) {
		w.notify()
	}
}

func sameCondition(a, b corev1.NodeCondition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.LastTransitionTime.Equal(&b.LastTransitionTime)
}

// snapshot returns what the watches see of the nodes with a watched
// condition or an eviction; a node absent from it is healthy.
func (run *runningHealthWatch) snapshot() map[string]rollout.NodeHealth {
	out := map[string]rollout.NodeHealth{}
	nodes := run.nodes.GetStore().List()
	healthWatchedNodes.Set(float64(len(nodes)))
	for _, obj := range nodes {
		node, ok := obj.(*corev1.Node)
		if !ok || len(node.Status.Conditions) == 0 {
			continue
		}
		h := out[node.Name]
		h.Conditions = node.Status.Conditions
		out[node.Name] = h
	}
	run.evictions.addTo(out)
	return out
}

// keepWatchedConditions cuts a Node down to its name and the watched
// conditions' type, status (cut as the rollout repeats it, so that a huge
// one costs no memory either) and last transition.
func keepWatchedConditions(gate *rollout.HealthGate) toolscache.TransformFunc {
	return func(in any) (any, error) {
		node, ok := in.(*corev1.Node)
		if !ok {
			return in, nil // a tombstone
		}
		out := &corev1.Node{}
		out.Name, out.ResourceVersion = node.Name, node.ResourceVersion
		for _, c := range node.Status.Conditions {
			if gate.Watches(c.Type) {
				out.Status.Conditions = append(out.Status.Conditions, corev1.NodeCondition{
					Type: c.Type, Status: rollout.ConditionStatusText(c.Status), LastTransitionTime: c.LastTransitionTime,
				})
			}
		}
		return out, nil
	}
}
