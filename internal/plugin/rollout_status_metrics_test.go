package plugin

import (
	"strings"
	"testing"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
)

// A halt by a metric check says so, not that nodes were unhealthy, and
// lists the check with what it saw; a check not passing yet is listed
// while the rollout goes on.
// latencyCheck is the metric check the status shows.
const latencyCheck = "latency"

func TestRolloutStatusMetricChecks(t *testing.T) {
	data := gateData(false, `{"maxUnhealthyNodes": 1}`)
	s := halted(data, "1", nil)
	s.Health.Metrics = []nodeslov1alpha1.MetricVerdict{{Name: latencyCheck, Failures: 1, Seen: "value 2 outside <= 0.5",
		At: s.Updated, Failed: true}}
	out, err := followStatus(t, statusCluster(t, data, decided(7, &s)), false)
	expectHalted(t, err)
	for _, want := range []string{
		"halted: yes, by the health gate's metric checks at 2026",
		"metric check latency: failed at 2026",
		": value 2 outside <= 0.5 (1 consecutive failures, 0 without data, 0 errors)",
		"resume: kubectl nodeslo rollout resume",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "reached nodes unhealthy") {
		t.Errorf("a metric halt reported as unhealthy nodes:\n%s", out)
	}

	going := midRollout(data)
	going.Health = &nodeslov1alpha1.RolloutHealth{Allowed: 1, AllowedOf: 3, Metrics: []nodeslov1alpha1.MetricVerdict{
		{Name: latencyCheck, NoData: 1, Seen: "no data", At: going.Updated}}}
	out, err = followStatus(t, statusCluster(t, data, decided(7, &going)), false)
	expectPrintedOnce(t, err)
	if !strings.Contains(out, "metric check latency: not passing at ") || strings.Contains(out, "unhealthy:") {
		t.Errorf("a check not passing, no node unhealthy:\n%s", out)
	}

	going.Health.Metrics = []nodeslov1alpha1.MetricVerdict{
		{Name: latencyCheck, Errors: 3, Inconclusive: true, Seen: "Prometheus unreachable", At: going.Updated},
		{Name: "trial", Failures: 4, DryRun: true, Seen: "value 9 outside <= 1", At: going.Updated}}
	out, err = followStatus(t, statusCluster(t, data, decided(7, &going)), false)
	expectPrintedOnce(t, err)
	for _, want := range []string{
		"metric check latency: inconclusive, the rollout waits for Prometheus to answer at ",
		": Prometheus unreachable (0 consecutive failures, 0 without data, 3 errors)",
		"metric check trial: not passing, dry run: never judged at ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
