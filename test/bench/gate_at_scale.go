package main

import (
	"context"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiwait "k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The health-gate phase (with BENCH_KWOK; docs/rollout.md#health-gates):
// a gated rollout over the whole fleet, canaries first; once every canary
// has the change, kwok turns three of them NotReady (the chaos label, see
// kwokStages). The gate must halt the rollout before its soak ends, that
// is within one step interval, and no node beyond the canaries may be
// written. The manager's heap and CPU while the gate judges are its cost.
const phaseHealthGate = "health-gate"

const (
	canaryLabel = "bench.nodeslo.dev/canary"
	// chaosLabel=chaosNotReady has kwok report a Node NotReady.
	chaosLabel    = "bench.nodeslo.dev/chaos"
	chaosNotReady = "not-ready"
	// gateStepSeconds is the rollout's soak after the canaries and its step
	// interval: the halt must come within it.
	gateStepSeconds = 30
	// gateNotReady canaries turn NotReady, one more than the gate allows.
	gateNotReady = 3
)

// gateStrategy is the phase's strategy, the NodeSLORollout's spec.strategy.
var gateStrategy = fmt.Sprintf(`{"maxNodesPerStep": "10%%", "stepIntervalSeconds": %d,
  "canary": {"nodeSelector": {"matchLabels": {%q: "true"}}, "soakSeconds": %d},
  "healthGate": {"maxUnhealthyNodes": %d}}`, gateStepSeconds, canaryLabel, gateStepSeconds, gateNotReady-1)

// gateChange is the configuration change the gated rollout carries: a
// cluster strategy no node strategy overrides, so every node is pending.
var gateChange = with(configChange10pct, sloconfig.KeyCPUBurst, burstConfig(75))

// gateCanaries are the canaries of a fleet of n: one node in a hundred,
// at least five (or every node of a smaller fleet), spread over it.
func gateCanaries(n int) []int {
	canaries := make([]int, min(n, max(5, n/100)))
	stride := n / len(canaries)
	for j := range canaries {
		canaries[j] = j * stride
	}
	return canaries
}

// gateFigures are what the phase adds to a phase result.
type gateFigures struct {
	// HaltSeconds runs from the chaos label to the halt.
	HaltSeconds float64 `json:"halt_seconds"`
	Canaries    int     `json:"canaries"`
	// WrittenBeyondCanaries counts the nodes other than the canaries with
	// the change, one step interval after the soak would have ended.
	WrittenBeyondCanaries int `json:"written_beyond_canaries"`
	// WatchedNodes is what the gate's Node watch held while it judged.
	WatchedNodes int `json:"watched_nodes"`
	// HeapBeforeBytes and HeapJudgingBytes are the heap in use before the
	// change and while the gate judges (after the halt, its watches
	// still running), after a forced GC.
	HeapBeforeBytes  float64 `json:"heap_before_bytes"`
	HeapJudgingBytes float64 `json:"heap_judging_bytes"`
	// JudgingCPUSeconds is the manager's CPU from the change to the halt.
	JudgingCPUSeconds float64 `json:"judging_cpu_seconds"`
}

// measureHealthGate runs the phase on the settled manager and puts the
// configuration and the labels back afterwards.
func (b *bench) measureHealthGate(ctx context.Context, m *managerProcess, r regime, rep int) (phaseResult, error) {
	canaries := gateCanaries(b.nodes)
	if err := b.labelNodes(ctx, canaries, canaryLabel, "true"); err != nil {
		return phaseResult{}, err
	}
	if _, _, err := b.waitSettled(ctx, m, b.nodes, b.timeout(r)); err != nil {
		return phaseResult{}, err
	}
	_, changed, err := expectedSpecs(gateChange, b.config10pct, b.nodes)
	if err != nil {
		return phaseResult{}, err
	}
	want := maps.Clone(b.specs10pct)
	for _, i := range canaries {
		want[nodeName(i)] = changed[nodeName(i)]
	}
	memBefore, err := readMemory(ctx, m)
	if err != nil {
		return phaseResult{}, err
	}
	start, err := b.begin(ctx, m)
	if err != nil {
		return phaseResult{}, err
	}

	reached := b.observer.expect(want)
	// The strategy, taken up by the manager, then the change: the manager
	// reads them from two objects, and a change seen first would reach
	// every node at once. Both are part of the phase, as when the rollout
	// key and the change came in one write of the ConfigMap: the gate's
	// Node watch starts with the strategy.
	if err := b.setRollout(ctx, gateStrategy, false); err != nil {
		return phaseResult{}, err
	}
	if err := b.waitRolloutTakenUp(ctx, b.timeout(r)); err != nil {
		return phaseResult{}, fmt.Errorf("%s: %w", phaseHealthGate, err)
	}
	if err := b.setConfig(ctx, gateChange); err != nil {
		return phaseResult{}, err
	}
	if err := b.observer.wait(ctx, reached, b.timeout(r), m.Process); err != nil {
		return phaseResult{}, fmt.Errorf("%s: the canaries: %w", phaseHealthGate, err)
	}
	canariesAt := time.Now()
	logf("  manager %-14s %d canaries reached after %.2fs; %d of them turn NotReady", phaseHealthGate,
		len(canaries), canariesAt.Sub(start.at).Seconds(), gateNotReady)
	if err := b.labelNodes(ctx, canaries[:gateNotReady], chaosLabel, chaosNotReady); err != nil {
		return phaseResult{}, err
	}
	chaosAt := time.Now()
	haltAt, err := b.waitHalted(ctx, m, 3*gateStepSeconds*time.Second)
	if err != nil {
		return phaseResult{}, err
	}
	judgingCPU, err := m.cpuSeconds()
	if err != nil {
		return phaseResult{}, err
	}
	g := gateFigures{HaltSeconds: haltAt.Sub(chaosAt).Seconds(), Canaries: len(canaries),
		HeapBeforeBytes: memBefore.HeapInuse, JudgingCPUSeconds: judgingCPU - start.managerCPU}
	memJudging, err := readMemory(ctx, m)
	if err != nil {
		return phaseResult{}, err
	}
	g.HeapJudgingBytes = memJudging.HeapInuse
	b.results.memory(r.name, rep, phaseHealthGate+"-before", memBefore)
	b.results.memory(r.name, rep, phaseHealthGate+"-judging", memJudging)
	ms, err := m.scrape(ctx)
	if err != nil {
		return phaseResult{}, err
	}
	g.WatchedNodes = int(ms.sum(controller.MetricHealthWatchedNodes, nil))

	// A batch would have come at the soak's end: wait one interval past it.
	if err := wait(ctx, time.Until(canariesAt.Add(2*gateStepSeconds*time.Second))); err != nil {
		return phaseResult{}, err
	}
	after, end, err := b.readEnd(ctx, m)
	if err != nil {
		return phaseResult{}, err
	}
	g.WrittenBeyondCanaries = b.observer.unmatched() // want is the set last expected
	p := newPhaseResult(r, rep, phaseHealthGate, haltAt.Sub(start.at).Seconds(), start.metrics, after, len(canaries))
	p.Gate = &g
	p.check()
	if err := b.finish(m, start, end, &p); err != nil {
		return p, err
	}
	logf("  manager %-14s halted %.2fs after the NotReady (step interval %d s); %d writes for %d canaries, "+
		"%d nodes beyond them written; while judging: heap in use %+.1f MiB (%+.0f bytes a node, %d nodes "+
		"watched), manager %.2f CPU-s from the change to the halt", phaseHealthGate, g.HaltSeconds,
		gateStepSeconds, p.Writes, len(canaries), g.WrittenBeyondCanaries,
		(g.HeapJudgingBytes-g.HeapBeforeBytes)/(1<<20), (g.HeapJudgingBytes-g.HeapBeforeBytes)/float64(b.nodes),
		g.WatchedNodes, g.JudgingCPUSeconds)
	return p, b.undoHealthGate(ctx, m, r, canaries)
}

// waitHalted waits until the manager says its rollout is halted.
func (b *bench) waitHalted(ctx context.Context, m *managerProcess, timeout time.Duration) (time.Time, error) {
	err := apiwait.PollUntilContextTimeout(ctx, pollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		ms, err := m.scrape(ctx)
		return err == nil && ms.sum(controller.MetricRolloutPhase,
			map[string]string{"phase": controller.RolloutPhaseHalted}) >= 1, nil
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: the rollout was not halted within %s (log in %s): %w", phaseHealthGate,
			timeout, m.log.Name(), err)
	}
	return time.Now(), nil
}

// undoHealthGate puts back what the phase changed: the configuration
// without a strategy (the canaries written back at once), kwok's chaos
// and the canary label, and waits until the chaos nodes are Ready again.
// The halted rollout is paused first, and the configuration put back
// while it holds every node: the strategy removed first would release
// the halted change to every node at once, and the configuration put back
// under the strategy would go out in steps. Once the manager took the
// configuration up, the strategy and the pause go in one write.
func (b *bench) undoHealthGate(ctx context.Context, m *managerProcess, r regime, canaries []int) error {
	reached := b.observer.expect(b.specs10pct)
	if err := b.setRollout(ctx, gateStrategy, true); err != nil {
		return err
	}
	if err := b.waitRolloutTakenUp(ctx, b.timeout(r)); err != nil {
		return fmt.Errorf("%s: pausing: %w", phaseHealthGate, err)
	}
	if err := b.setConfig(ctx, configChange10pct); err != nil {
		return err
	}
	if err := b.waitRolloutTakenUp(ctx, b.timeout(r)); err != nil {
		return fmt.Errorf("%s: putting the configuration back: %w", phaseHealthGate, err)
	}
	if err := b.setRollout(ctx, "", false); err != nil {
		return err
	}
	if err := b.observer.wait(ctx, reached, b.timeout(r), m.Process); err != nil {
		return fmt.Errorf("%s: putting the configuration back: %w", phaseHealthGate, err)
	}
	if err := b.labelNodes(ctx, canaries[:gateNotReady], chaosLabel, ""); err != nil {
		return err
	}
	if err := b.labelNodes(ctx, canaries, canaryLabel, ""); err != nil {
		return err
	}
	for _, i := range canaries[:gateNotReady] {
		if err := b.waitReady(ctx, nodeName(i), time.Minute); err != nil {
			return err
		}
	}
	_, _, err := b.waitSettled(ctx, m, b.nodes, b.timeout(r))
	return err
}

// labelNodes sets (or, with an empty value, removes) one label on nodes.
func (b *bench) labelNodes(ctx context.Context, nodes []int, key, value string) error {
	return forEach(ctx, len(nodes), setupWorkers, func(ctx context.Context, k int) error {
		return labelNode(ctx, b.client, nodes[k], key, value)
	})
}

// waitReady waits until kwok reports node Ready again.
func (b *bench) waitReady(ctx context.Context, name string, timeout time.Duration) error {
	err := apiwait.PollUntilContextTimeout(ctx, pollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		node := &corev1.Node{}
		if err := b.client.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
			return false, fmt.Errorf("reading node %s: %w", name, err)
		}
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.Status == corev1.ConditionTrue, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("node %s not Ready again within %s of its chaos label's removal: %w", name, timeout, err)
	}
	return nil
}
