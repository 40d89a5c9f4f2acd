// Command prometheus-rules prints the rule groups of a PrometheusRule
// manifest (its spec) as a plain Prometheus rules file, so that the alerts
// have one source, config/prometheus/prometheusrule.yaml, for the Prometheus
// Operator, for a plain Prometheus and for `promtool test rules`.
//
//	go run ./hack/prometheus-rules config/prometheus/prometheusrule.yaml > rules.yaml
package main

import (
	"errors"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

// prometheusRule is the part of a PrometheusRule this command reads; the
// groups are copied as they are, whatever fields they hold.
type prometheusRule struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Groups []any `json:"groups"`
	} `json:"spec"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: prometheus-rules PROMETHEUSRULE.yaml")
		os.Exit(2)
	}
	out, err := rulesFile(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "prometheus-rules: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	if _, err := os.Stdout.Write(out); err != nil {
		fmt.Fprintln(os.Stderr, "prometheus-rules:", err)
		os.Exit(1)
	}
}

// rulesFile reads the PrometheusRule at path and returns its spec as YAML.
func rulesFile(path string) ([]byte, error) {
	in, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rule prometheusRule
	if err := yaml.Unmarshal(in, &rule); err != nil {
		return nil, err
	}
	if rule.Kind != "PrometheusRule" || rule.APIVersion != "monitoring.coreos.com/v1" {
		return nil, fmt.Errorf("not a monitoring.coreos.com/v1 PrometheusRule (apiVersion %q, kind %q)",
			rule.APIVersion, rule.Kind)
	}
	if len(rule.Spec.Groups) == 0 {
		return nil, errors.New("spec.groups is empty")
	}
	header := fmt.Appendf(nil, "# Generated from %s by hack/prometheus-rules: edit that file instead.\n", path)
	body, err := yaml.Marshal(rule.Spec)
	if err != nil {
		return nil, err
	}
	return append(header, body...), nil
}
