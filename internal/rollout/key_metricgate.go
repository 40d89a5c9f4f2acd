package rollout

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"text/template"
	"text/template/parse"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// defaultMetricIntervalSeconds is a metric check's interval when the
// strategy does not set one (docs/rollout.md#metric-gates).
const defaultMetricIntervalSeconds = 60

// MetricCheck is one compiled check of healthGate.metrics: a PromQL query
// over the nodes reached, which must return one number within [Min, Max].
type MetricCheck struct {
	Name string
	// Address is the Prometheus server's base URL; Credentials and
	// InsecureSkipVerify are how the controller reaches it
	// (key_metricgate_endpoint.go). Credentials names an entry of the
	// manager's credentials directory, read by the controller at each
	// query, never here.
	Address            string
	Credentials        string
	InsecureSkipVerify bool
	// Query is the PromQL query as written, and query its compiled template.
	Query string
	query *template.Template
	// Min and Max bound the number the query returns (nil: no bound).
	Min, Max *float64
	// Interval is how often the check is measured.
	Interval time.Duration
	// FailureLimit is how many consecutive failed measurements the check
	// tolerates (and consecutive errors before it is inconclusive),
	// NoDataLimit how many consecutive ones without data before each
	// further one counts as a failure.
	FailureLimit, NoDataLimit int
	// DryRun: measured and shown, never judged (docs/rollout.md#metric-gates).
	DryRun bool
}

// MetricQueryData is what a check's query template sees
// (docs/rollout.md#metric-gates).
type MetricQueryData struct {
	// NodesRegex matches exactly the names of the nodes reached, canaries
	// included; CanariesRegex only the canaries among them. Both are
	// anchored and hold no backslash, so they read the same between double
	// quotes and backquotes.
	NodesRegex, CanariesRegex string
	// Interval is the check's interval as a PromQL duration ("60s").
	Interval string
}

// compileMetricChecks compiles healthGate.metrics, reporting to found
// what the schema cannot check (the query templates, the hosts and
// credentials the manager allows). hasCanary says whether the strategy
// selects canaries: a query over the canaries without any is warned about.
func compileMetricChecks(
	written []nodeslov1alpha1.MetricCheck, hasCanary bool, limits *Limits, found *sloconfig.Findings,
) []MetricCheck {
	checks := make([]MetricCheck, 0, len(written))
	for i := range written {
		w, p := &written[i], field.NewPath("healthGate", "metrics").Index(i)
		c := MetricCheck{Name: w.Name, Address: w.Address, Credentials: w.Credentials,
			InsecureSkipVerify: w.InsecureSkipVerify, Min: w.Min, Max: w.Max,
			Interval:     secondsOr(w.IntervalSeconds, defaultMetricIntervalSeconds),
			FailureLimit: int(ptr.Deref(w.FailureLimit, 0)), NoDataLimit: int(ptr.Deref(w.NoDataLimit, 0)),
			DryRun: w.DryRun}
		found.Fail(c.compileQuery(w.Query, p.Child("query"))...)
		found.Fail(c.checkEndpoint(p, limits)...)
		if c.query != nil && !hasCanary && usesCanaries(c.query) {
			found.Warnf("%s: uses {{.CanariesRegex}} but the strategy selects no canary: "+
				"it matches no node, so the query finds no data", p.Child("query"))
		}
		checks = append(checks, c)
	}
	return checks
}

// compileQuery parses the query template and executes it on sample nodes,
// so that a field misspelt or a function misused is an error now, not a
// failed measurement in the middle of a rollout.
func (c *MetricCheck) compileQuery(v string, path *field.Path) field.ErrorList {
	if strings.TrimSpace(v) == "" {
		return field.ErrorList{field.Required(path,
			`a PromQL query returning one number, such as max(node_latency_seconds{node=~"{{.NodesRegex}}"})`)}
	}
	c.Query = v
	t, err := template.New(path.String()).Option("missingkey=error").Parse(c.Query)
	if err != nil {
		return field.ErrorList{field.Invalid(path, sloconfig.Echo(c.Query), "does not parse as a template: "+err.Error())}
	}
	if err := onlyFields(t); err != nil {
		return field.ErrorList{field.Invalid(path, sloconfig.Echo(c.Query), err.Error())}
	}
	sample := MetricQueryData{NodesRegex: nodesRegex([]string{"node-a", "node-b.example"}),
		CanariesRegex: nodesRegex([]string{"node-a"}), Interval: "60s"}
	var out strings.Builder
	if err := t.Execute(&out, sample); err != nil {
		return field.ErrorList{field.Invalid(path, sloconfig.Echo(c.Query), "does not execute: "+templateHint(err))}
	}
	c.query = t
	return nil
}

// onlyFields checks that a query template holds text and fields only: no
// function, loop, condition or template call, so that rendering it costs
// what its text and the regexes cost, in the webhook and the controller
// alike (a range or a printf width could take seconds or gigabytes).
func onlyFields(t *template.Template) error {
	if len(t.Templates()) > 1 || t.Tree == nil {
		return errors.New("must not define templates: only the fields " + fieldList + " may be used")
	}
	for _, n := range t.Root.Nodes {
		switch n := n.(type) {
		case *parse.TextNode:
		case *parse.ActionNode:
			p := n.Pipe
			if len(p.Decl) == 0 && len(p.Cmds) == 1 && len(p.Cmds[0].Args) == 1 {
				if _, ok := p.Cmds[0].Args[0].(*parse.FieldNode); ok {
					continue
				}
			}
			return fmt.Errorf("%s: only the fields %s may be used, without functions", n, fieldList)
		default:
			return fmt.Errorf("%s: only the fields %s may be used, without conditions or loops", n, fieldList)
		}
	}
	return nil
}

// templateFields are the fields a query template may use.
var templateFields = []string{"NodesRegex", "CanariesRegex", "Interval"}

// fieldList names the template's fields for messages.
var fieldList = "{{." + strings.Join(templateFields, "}}, {{.") + "}}"

// templateHint is a template's execution error, with the closest field
// name when the template names one that does not exist.
func templateHint(err error) string {
	msg := err.Error()
	const unknown = "can't evaluate field "
	_, rest, found := strings.Cut(msg, unknown)
	if !found {
		return msg
	}
	name, _, _ := strings.Cut(rest, " ")
	if best := sloconfig.Closest(name, templateFields); best != "" {
		return fmt.Sprintf("%s (did you mean {{.%s}}?)", msg, best)
	}
	return fmt.Sprintf("%s (the fields are %s)", msg, fieldList)
}

// usesCanaries reports whether a query template renders the canaries' regex.
func usesCanaries(t *template.Template) bool {
	const mark = "\x00canaries\x00"
	var out strings.Builder
	_ = t.Execute(&out, MetricQueryData{CanariesRegex: mark})
	return strings.Contains(out.String(), mark)
}

// Render is the check's query for the nodes of data.
func (c *MetricCheck) Render(data MetricQueryData) (string, error) {
	var out strings.Builder
	if err := c.query.Execute(&out, data); err != nil {
		return "", fmt.Errorf("rendering the query of metric check %s: %w", c.Name, err)
	}
	return out.String(), nil
}

// Pass reports whether a measured value is within the check's bounds.
func (c *MetricCheck) Pass(v float64) bool {
	return (c.Min == nil || v >= *c.Min) && (c.Max == nil || v <= *c.Max) && !math.IsNaN(v)
}

// Bounds renders the check's bounds ("<= 0.3", ">= 0.9", "0.1..0.3").
func (c *MetricCheck) Bounds() string {
	switch {
	case c.Min != nil && c.Max != nil:
		return fmt.Sprintf("%g..%g", *c.Min, *c.Max)
	case c.Max != nil:
		return fmt.Sprintf("<= %g", *c.Max)
	default:
		return fmt.Sprintf(">= %g", *c.Min)
	}
}
