package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// The steady-labels phase (with BENCH_KWOK): the steady phase's length of
// the fleet's heartbeats, and at its start and at the start of every
// following minute the next 1 % of the nodes changes size (sizeLabel, big
// and standard swapped). The system key's "big" node strategy reads that
// label, so each such node's NodeSLO changes: the floor's plain client
// writes those NodeSLOs, the manager must write exactly them.
const phaseSteadyLabels = "steady-labels"

const (
	// churnInterval is the time between two label changes.
	churnInterval = time.Minute
	// churnStride: one node in churnStride changes size at each change.
	churnStride = 100
)

// churnChanges is how many times the nodes change size within the phase:
// at its start and at each full interval after it, at least once.
func (b *bench) churnChanges() int {
	return max(1, int((b.steady+churnInterval-1)/churnInterval))
}

// churnNodes are the nodes that change size at change k: one in
// churnStride, offset by k, so that ten changes move ten different
// shares of a fleet of at least a thousand nodes.
func churnNodes(n, k int) []int {
	nodes := make([]int, max(1, n/churnStride))
	for j := range nodes {
		nodes[j] = (j*churnStride + k) % n
	}
	return nodes
}

// otherSize swaps a node's size.
func otherSize(size string) string {
	if size == bigSize {
		return "standard"
	}
	return bigSize
}

// churn is the fleet's sizes while the phase runs on one side: which nodes
// are swapped, the spec every node must carry then, and who writes.
type churn struct {
	b       *bench
	swapped map[int]bool
	want    specSet
	// write is the floor's (nil for the manager's side); writer the
	// process writing (nil for the floor); timeout bounds each change.
	write   func(context.Context, []string, specSet) error
	writer  *localcluster.Process
	timeout time.Duration
}

func (b *bench) newChurn(write func(context.Context, []string, specSet) error, writer *localcluster.Process,
	timeout time.Duration) *churn {
	return &churn{b: b, swapped: map[int]bool{}, want: maps.Clone(b.specs10pct), write: write, writer: writer,
		timeout: timeout}
}

// size is node i's size label now.
func (c *churn) size(i int) string {
	if c.swapped[i] {
		return otherSize(nodeSize(i))
	}
	return nodeSize(i)
}

// swap changes the size of nodes, labels them so, and has the floor, if
// it is the floor's side, write what changed; it returns once the observer
// saw every node as it must be, and says how many NodeSLOs changed.
func (c *churn) swap(ctx context.Context, nodes []int) (int, error) {
	want := maps.Clone(c.want)
	var changed []string
	for _, i := range nodes {
		c.swapped[i] = !c.swapped[i]
		node := resolverNode(i)
		node.Labels[sizeLabel] = c.size(i)
		res := c.b.config10pct.Resolve(node, nil)
		spec := res.Spec.DeepCopy()
		if !sloconfig.SpecEqual(want[node.Name], spec) {
			changed = append(changed, node.Name)
		}
		want[node.Name] = spec
	}
	c.want = want
	reached := c.b.observer.expect(want)
	if err := forEach(ctx, len(nodes), setupWorkers, func(ctx context.Context, k int) error {
		return labelNode(ctx, c.b.client, nodes[k], sizeLabel, c.size(nodes[k]))
	}); err != nil {
		return 0, err
	}
	if c.write != nil {
		if err := c.write(ctx, changed, want); err != nil {
			return 0, err
		}
	}
	return len(changed), c.b.observer.wait(ctx, reached, c.timeout, c.writer)
}

// run makes the phase's changes, each at its minute, until the phase's
// length is over, and returns how many NodeSLOs changed.
func (c *churn) run(ctx context.Context) (int, error) {
	start, changed := time.Now(), 0
	for k := range c.b.churnChanges() {
		if err := wait(ctx, time.Until(start.Add(time.Duration(k)*churnInterval))); err != nil {
			return changed, err
		}
		n, err := c.swap(ctx, churnNodes(c.b.nodes, k))
		changed += n
		if err != nil {
			return changed, fmt.Errorf("%s, change %d: %w", phaseSteadyLabels, k+1, err)
		}
	}
	return changed, wait(ctx, time.Until(start.Add(c.b.steady)))
}

// restore gives every swapped node its size back, outside the measurement.
func (c *churn) restore(ctx context.Context) error {
	var nodes []int
	for i, swapped := range c.swapped {
		if swapped {
			nodes = append(nodes, i)
		}
	}
	_, err := c.swap(ctx, nodes)
	return err
}

// labelNode sets one label of node i with a merge patch.
func labelNode(ctx context.Context, c client.Client, i int, key, value string) error {
	var v any = value
	if value == "" {
		v = nil // removes the label
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{key: v}}})
	if err != nil {
		return err
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName(i)}}
	if err := c.Patch(ctx, node, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("labelling node %s %s=%q: %w", node.Name, key, value, err)
	}
	return nil
}

// measureSteadyLabelsFloor makes the phase's label changes and has the
// floor write the NodeSLOs they change.
func (b *bench) measureSteadyLabelsFloor(ctx context.Context, r regime, f *floor) (floorFigures, error) {
	c := b.newChurn(f.write, nil, b.timeout(r))
	figures, err := b.measureFloorSpan(ctx, phaseSteadyLabels, func(ctx context.Context) (string, error) {
		changed, err := c.run(ctx)
		return fmt.Sprintf("%d writes", changed), err
	})
	if err != nil {
		return figures, err
	}
	return figures, c.restore(ctx)
}

// measureSteadyLabels runs the settled manager through the phase: it must
// write exactly the NodeSLOs the label changes change.
func (b *bench) measureSteadyLabels(ctx context.Context, m *managerProcess, r regime, rep int) (phaseResult, error) {
	c := b.newChurn(nil, m.Process, b.timeout(r))
	start, err := b.begin(ctx, m)
	if err != nil {
		return phaseResult{}, err
	}
	changed, err := c.run(ctx)
	if err != nil {
		return phaseResult{}, err
	}
	end, err := sampleCPU(b.controlPlane)
	if err != nil {
		return phaseResult{}, err
	}
	seconds := time.Since(start.at).Seconds()
	after, _, err := b.waitSettled(ctx, m, b.nodes, b.timeout(r))
	if err != nil {
		return phaseResult{}, err
	}
	p := newPhaseResult(r, rep, phaseSteadyLabels, seconds, start.metrics, after, changed)
	if err := b.finish(m, start, end, &p); err != nil {
		return p, err
	}
	minutes := b.steady.Minutes()
	logf("  manager %-14s a minute: %.2f CPU-s, %.1f reconciles, %.1f writes (%d NodeSLOs changed in all); "+
		"control plane %.2f CPU-s", phaseSteadyLabels, p.CPUSeconds/minutes, float64(p.Reconciles)/minutes,
		float64(p.Writes)/minutes, changed, p.ControlPlaneCPUSeconds/minutes)
	if err := c.restore(ctx); err != nil {
		return p, err
	}
	_, _, err = b.waitSettled(ctx, m, b.nodes, b.timeout(r))
	return p, err
}
