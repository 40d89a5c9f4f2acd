package controller

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// Every rollout is in exactly one phase, a halt before a pause before the
// progress: the alerts on halted and on paused rely on it.
func TestEveryRolloutIsInExactlyOnePhase(t *testing.T) {
	for _, c := range []struct {
		name    string
		figures rollout.Figures
		want    string
	}{
		{"no rollout", rollout.Figures{}, RolloutPhaseIdle},
		{"completed, under the gate's soak", rollout.Figures{Reached: 40, Step: 4}, RolloutPhaseIdle},
		{"taking steps", rollout.Figures{InProgress: true, Pending: 30}, RolloutPhaseProgressing},
		{"paused", rollout.Figures{InProgress: true, Pending: 30, Paused: true}, RolloutPhasePaused},
		{"halted, held as if paused", rollout.Figures{InProgress: true, Pending: 30, Paused: true, Halted: true},
			RolloutPhaseHalted},
		{"halted data applied again, nothing pending", rollout.Figures{Withheld: true}, RolloutPhaseHalted},
		{"reverting what it halted", rollout.Figures{InProgress: true, Pending: 3, Withheld: true}, RolloutPhaseHalted},
	} {
		g := newPhaseGauge()
		g.set(RolloutPhaseProgressing) // a phase set before must not stay at 1 beside the new one
		g.set(rolloutPhaseOf(c.figures))
		if got := phasesOf(t, g); len(got) != len(RolloutPhases) || got[c.want] != 1 || sum(got) != 1 {
			t.Errorf("%s: series %v, want one per phase (%v), 1 only for %s", c.name, got, RolloutPhases, c.want)
		}
	}
}

// A new gauge says idle: a standby, and a leader before its first
// decision, hold no node.
func TestTheRolloutPhaseStartsIdle(t *testing.T) {
	if got := phasesOf(t, newPhaseGauge()); got[RolloutPhaseIdle] != 1 || sum(got) != 1 {
		t.Errorf("a new gauge's series: %v, want idle alone at 1", got)
	}
}

// phasesOf collects g on a registry of its own: phase -> value.
func phasesOf(t *testing.T, g prometheus.Collector) map[string]float64 {
	t.Helper()
	registry := prometheus.NewPedanticRegistry()
	registry.MustRegister(g)
	families, err := registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				out[l.GetValue()] = m.GetGauge().GetValue()
			}
		}
	}
	if n := testutil.CollectAndCount(g, MetricRolloutPhase); n != len(out) {
		t.Fatalf("%d series collected, %d gathered", n, len(out))
	}
	return out
}

func sum(values map[string]float64) float64 {
	total := 0.0
	for _, v := range values {
		total += v
	}
	return total
}
