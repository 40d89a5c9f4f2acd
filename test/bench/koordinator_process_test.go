package main

import (
	"fmt"
	"slices"
	"testing"
)

// koord-manager runs its NodeSLO controller alone, without leader election
// or webhook, on the bench's ConfigMap and the given ports; its client is
// unlimited in the unthrottled regime only, at its own defaults otherwise.
func TestKoordinatorArgs(t *testing.T) {
	base := []string{
		"--controllers=nodeslo",
		"--enable-leader-election=false",
		"--feature-gates=WebhookFramework=false",
		"--config-namespace=koordinator-system",
		"--slo-config-name=slo-controller-config",
		"--health-probe-addr=127.0.0.1:1",
		"--metrics-addr=127.0.0.1:2",
		"--enable-pprof=true",
		"--pprof-addr=127.0.0.1:3",
	}
	for _, r := range regimes {
		want := base
		if r.unthrottled() {
			want = append(slices.Clone(base), "--rest-config-qps=-1", "--rest-config-burst=-1")
		}
		got := koordinatorArgs(r, "127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3")
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", r.name, got, want)
		}
	}
}

// koord-manager has settled once it reconciled the nodes and its NodeSLO
// controller's queue and workers are idle.
func TestKoordinatorSettled(t *testing.T) {
	scrape := func(reconciled, depth, active float64) metrics {
		ms, err := parseMetrics(fmt.Appendf(nil, `# TYPE controller_runtime_reconcile_total counter
controller_runtime_reconcile_total{controller="nodeslo",result="success"} %g
# TYPE workqueue_depth gauge
workqueue_depth{controller="nodeslo",name="nodeslo",priority="0"} %g
# TYPE controller_runtime_active_workers gauge
controller_runtime_active_workers{controller="nodeslo"} %g
`, reconciled, depth, active), "koord-manager")
		if err != nil {
			t.Fatal(err)
		}
		return ms
	}
	for _, c := range []struct {
		reconciled, depth, active float64
		want                      bool
	}{
		{200, 0, 0, true},
		{199, 0, 0, false},
		{200, 3, 0, false},
		{200, 0, 1, false},
	} {
		if got := koordinatorSettled(scrape(c.reconciled, c.depth, c.active), 200); got != c.want {
			t.Errorf("%v reconciled, depth %v, %v active: settled %v, want %v", c.reconciled, c.depth, c.active,
				got, c.want)
		}
	}
}
