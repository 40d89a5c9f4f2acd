package controller

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// metricMeasurer runs the health gate's metric queries beside the
// rollout controller, never in its one worker: a plan starts the
// queries due (start) and returns at once; each query runs in its own
// goroutine under its own deadline (metricQueryTimeout), and its sample,
// once there, wakes the controller (done), whose next plan takes it
// (take) and judges it as if it had been measured then. So a Prometheus
// that answers late, or never, costs a failed measurement at the deadline
// and delays no configuration change, pause or revert.
//
// A check has at most one query running. Samples belong to the rollout
// they were measured for (scope: the configuration rolled out and the
// strategy): a plan of another one drops them and cancels its queries,
// and so does stop (the gate judges nothing) or a halt. A query cancelled
// so yields no sample and is not counted.
//
// It is a Runnable of the manager, like the health watch: its queries run
// under the manager's context, and Start returns once they have ended.
type metricMeasurer struct {
	querier metricQuerier
	done    chan<- event.GenericEvent

	// started is closed once Start has set ctx, the manager's context.
	started chan struct{}
	ctx     context.Context //nolint:containedctx // the manager's, for the queries started later

	mu sync.Mutex
	// scope is the rollout the queries running and samples held are for.
	scope string
	// running are the queries running, by check name, and samples those
	// ended since the last take.
	running map[string]*runningQuery
	samples map[string]rollout.MetricSample
	queries sync.WaitGroup
}

// runningQuery is one query running; its identity tells it from a later
// one of the same check.
type runningQuery struct{ cancel context.CancelFunc }

func newMetricMeasurer(q metricQuerier, done chan<- event.GenericEvent) *metricMeasurer {
	return &metricMeasurer{querier: q, done: done, started: make(chan struct{}),
		running: map[string]*runningQuery{}, samples: map[string]rollout.MetricSample{}}
}

// Start keeps the queries' context until the manager stops, then waits
// for the queries running.
func (m *metricMeasurer) Start(ctx context.Context) error {
	m.mu.Lock()
	m.ctx = ctx
	close(m.started)
	m.mu.Unlock()
	<-ctx.Done()
	m.stop()
	m.queries.Wait()
	return nil
}

// metricScope identifies the rollout of in: samples measured for another
// one are not judged in it.
func metricScope(in *rollout.PlanInput) string {
	return in.Config.Fingerprint() + "|" + in.RolloutKey
}

// take returns the samples ended since the last take for scope, by check
// name (nil: none), and forgets them; a scope other than the last one's
// cancels what ran for that one.
func (m *metricMeasurer) take(scope string) map[string]rollout.MetricSample {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rescopeLocked(scope)
	if len(m.samples) == 0 {
		return nil
	}
	out := m.samples
	m.samples = map[string]rollout.MetricSample{}
	return out
}

// start runs, for scope, the queries whose check has none running. Before
// the manager has started the measurer, or once it stops, it starts
// nothing: a later plan finds the checks due again.
func (m *metricMeasurer) start(scope string, queries []rollout.MetricQuery) {
	if len(queries) == 0 {
		return
	}
	select {
	case <-m.started:
	default:
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx.Err() != nil {
		return // Start waits for the queries: none may begin after that wait
	}
	m.rescopeLocked(scope)
	for _, q := range queries {
		if _, ok := m.running[q.Check.Name]; ok {
			continue
		}
		ctx, cancel := context.WithCancel(m.ctx)
		run := &runningQuery{cancel: cancel}
		m.running[q.Check.Name] = run
		m.queries.Add(1)
		go m.measure(ctx, run, q)
	}
}

// measure runs one query and keeps its sample, unless it was cancelled.
func (m *metricMeasurer) measure(ctx context.Context, run *runningQuery, q rollout.MetricQuery) {
	defer m.queries.Done()
	defer run.cancel()
	s := m.querier.Query(ctx, q.Check, q.Query)
	m.mu.Lock()
	if ctx.Err() != nil || m.running[q.Check.Name] != run {
		m.mu.Unlock()
		return // cancelled: another rollout, no gate, a halt or the manager stopping
	}
	// Counted before a plan can take it, so that the count covers every
	// sample judged.
	countMeasurement(q.Check.Name, measurementResult(q.Check, s))
	delete(m.running, q.Check.Name)
	m.samples[q.Check.Name] = s
	m.mu.Unlock()
	trySignal(m.done, event.GenericEvent{Object: &corev1.ConfigMap{}}) // a pending wake-up's plan takes this sample too
}

// stop cancels the queries running and forgets the samples held: the gate
// judges nothing now.
func (m *metricMeasurer) stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rescopeLocked("")
}

// rescopeLocked makes scope the measurer's, cancelling and forgetting
// what was for another one.
func (m *metricMeasurer) rescopeLocked(scope string) {
	if scope == m.scope {
		return
	}
	for name, run := range m.running {
		run.cancel()
		delete(m.running, name)
	}
	clear(m.samples)
	m.scope = scope
}
