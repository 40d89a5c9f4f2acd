// Package alertrules reads the alerts of config/prometheus/prometheusrule.yaml,
// the one source of the project's alerts, for the suites that check them
// against a live manager (test/monitoring, test/crdskew) and the runbook.
package alertrules

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

// Alert is one alerting rule of the PrometheusRule.
type Alert struct {
	Name        string            `json:"alert"`
	Expr        string            `json:"expr"`
	Annotations map[string]string `json:"annotations"`
}

// Read returns every alert of the PrometheusRule (recording rules left out).
func Read() ([]Alert, error) {
	path := envtestharness.RepoPath("config", "prometheus", "prometheusrule.yaml")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rule struct {
		Spec struct {
			Groups []struct {
				Rules []Alert `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &rule); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []Alert
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			if r.Name != "" {
				out = append(out, r)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no alert", path)
	}
	return out, nil
}
