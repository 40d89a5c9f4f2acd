// Command prometheus-rules writes plain Prometheus rules files from this
// project's monitoring sources, so that each has one source:
//
//	bin/kustomize build config/prometheus | go run ./hack/prometheus-rules -
//
// prints the rule groups of the PrometheusRule among the objects read (a
// file, or - for the standard input; its spec), the alerts for a
// Prometheus without the Operator and for `promtool test rules`. The
// PrometheusRule is read as kustomize builds it: the source's runbook_url
// is a section's anchor, which kustomize prefixes with the runbook's
// address, and an anchor left alone is refused;
//
//	go run ./hack/prometheus-rules -dashboard config/grafana/nodeslo-controller.json
//
// prints every query of a Grafana dashboard as a recording rule, only so
// that `promtool check rules` parses each with Prometheus's own parser
// (Grafana's interval variables become 5m).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

func main() {
	dashboard := flag.Bool("dashboard", false,
		"the file is a Grafana dashboard (JSON): print its queries as recording rules")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: prometheus-rules [-dashboard] FILE (- for the standard input)")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	path := flag.Arg(0)
	convert := alertRules
	if *dashboard {
		convert = dashboardRules
	}
	out, err := convert(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "prometheus-rules: %s: %v\n", path, err)
		os.Exit(1)
	}
	if _, err := os.Stdout.Write(out); err != nil {
		fmt.Fprintln(os.Stderr, "prometheus-rules:", err)
		os.Exit(1)
	}
}

// prometheusRule is the part of a PrometheusRule this command reads; the
// groups are copied as they are, whatever fields they hold.
type prometheusRule struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Groups []any `json:"groups"`
	} `json:"spec"`
}

// alertRules reads the objects at path (- for the standard input) and
// returns the spec of the one monitoring.coreos.com/v1 PrometheusRule
// among them as YAML.
func alertRules(path string) ([]byte, error) {
	in := io.Reader(os.Stdin)
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer func() { _ = f.Close() }()
		in = f
	}
	var rules []prometheusRule
	docs := utilyaml.NewYAMLReader(bufio.NewReader(in))
	for {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		var rule prometheusRule
		if err := yaml.Unmarshal(doc, &rule); err != nil {
			return nil, err
		}
		if rule.Kind == "PrometheusRule" && rule.APIVersion == "monitoring.coreos.com/v1" {
			rules = append(rules, rule)
		}
	}
	if len(rules) != 1 {
		return nil, fmt.Errorf("%d monitoring.coreos.com/v1 PrometheusRules, want one", len(rules))
	}
	rule := rules[0]
	if len(rule.Spec.Groups) == 0 {
		return nil, errors.New("spec.groups is empty")
	}
	if err := runbooksAreAddresses(rule.Spec.Groups); err != nil {
		return nil, err
	}
	return withHeader(path, rule.Spec)
}

// runbooksAreAddresses refuses a runbook_url that is still the anchor of
// the source: a PrometheusRule read from config/prometheus without
// kustomize, which puts the runbook's address in front of it.
func runbooksAreAddresses(groups []any) error {
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert       string            `json:"alert"`
				Annotations map[string]string `json:"annotations"`
			} `json:"rules"`
		} `json:"groups"`
	}
	raw, err := json.Marshal(map[string]any{"groups": groups})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &rules); err != nil {
		return err
	}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if url, ok := r.Annotations["runbook_url"]; ok && !strings.Contains(url, "://") {
				return fmt.Errorf("alert %s: runbook_url %q is not an address: build config/prometheus with kustomize, "+
					"which puts the runbook's address in front of the anchor", r.Alert, url)
			}
		}
	}
	return nil
}

// dashboard is the part of a Grafana dashboard that holds queries: panels,
// and the panels of collapsed rows.
type dashboard struct {
	Panels []panel `json:"panels"`
}

type panel struct {
	ID      int     `json:"id"`
	Title   string  `json:"title"`
	Panels  []panel `json:"panels"`
	Targets []struct {
		RefID string `json:"refId"`
		Expr  string `json:"expr"`
	} `json:"targets"`
}

type recordingRule struct {
	Record string `json:"record"`
	Expr   string `json:"expr"`
}

type ruleGroup struct {
	Name  string          `json:"name"`
	Rules []recordingRule `json:"rules"`
}

// grafanaIntervals are the variables Grafana replaces by a duration.
var grafanaIntervals = strings.NewReplacer("$__rate_interval", "5m", "$__interval", "5m", "$__range", "5m")

// dashboardRules reads the dashboard at path and returns one recording rule
// per query, named after its panel and query.
func dashboardRules(path string) ([]byte, error) {
	in, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d dashboard
	if err := json.Unmarshal(in, &d); err != nil {
		return nil, err
	}
	group := ruleGroup{Name: "dashboard-queries"}
	var walk func([]panel)
	walk = func(panels []panel) {
		for _, p := range panels {
			for _, t := range p.Targets {
				if t.Expr == "" {
					continue
				}
				group.Rules = append(group.Rules, recordingRule{
					Record: fmt.Sprintf("dashboard:panel_%d:%s", p.ID, t.RefID),
					Expr:   grafanaIntervals.Replace(t.Expr),
				})
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	if len(group.Rules) == 0 {
		return nil, errors.New("no panel has a query")
	}
	return withHeader(path, map[string][]ruleGroup{"groups": {group}})
}

// withHeader marshals v as YAML after a comment naming its source.
func withHeader(path string, v any) ([]byte, error) {
	body, err := yaml.Marshal(v)
	if err != nil {
		return nil, err
	}
	if path == "-" {
		path = "config/prometheus, as kustomize builds it,"
	}
	header := fmt.Appendf(nil, "# Generated from %s by hack/prometheus-rules: edit that instead.\n", path)
	return append(header, body...), nil
}
