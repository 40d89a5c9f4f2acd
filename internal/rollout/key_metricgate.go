package rollout

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"text/template"
	"text/template/parse"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Bounds and defaults of healthGate.metrics (docs/rollout.md#metric-gates).
const (
	// maxMetricChecks bounds the checks, and so what the record keeps of them.
	maxMetricChecks               = 10
	maxMetricQueryLength          = 4096
	defaultMetricIntervalSeconds  = 60
	maxMetricIntervalSeconds      = 3600
	maxMetricFailureOrNoDataLimit = 100
)

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

// metricCheckDocument is one check as written; nil means "not set".
type metricCheckDocument struct {
	Name        *string `json:"name,omitempty"`
	Address     *string `json:"address,omitempty"`
	Credentials *string `json:"credentials,omitempty"`
	// BearerTokenFile and CAFile are refused (a strategy names no file);
	// read only to say what replaces them.
	BearerTokenFile    *string  `json:"bearerTokenFile,omitempty"`
	CAFile             *string  `json:"caFile,omitempty"`
	InsecureSkipVerify *bool    `json:"insecureSkipVerify,omitempty"`
	Query              *string  `json:"query,omitempty"`
	Min                *float64 `json:"min,omitempty"`
	Max                *float64 `json:"max,omitempty"`
	IntervalSeconds    *int64   `json:"intervalSeconds,omitempty"`
	FailureLimit       *int64   `json:"failureLimit,omitempty"`
	NoDataLimit        *int64   `json:"noDataLimit,omitempty"`
	DryRun             *bool    `json:"dryRun,omitempty"`
}

// compileMetricChecks checks healthGate.metrics and fills in the defaults,
// reporting to found. hasCanary says whether the strategy selects canaries: a
// query over the canaries without any is warned about.
func compileMetricChecks(
	docs []metricCheckDocument, hasCanary bool, limits *Limits, found *sloconfig.Findings,
) []MetricCheck {
	if len(docs) == 0 {
		return nil
	}
	path := field.NewPath("healthGate", "metrics")
	var errs field.ErrorList
	if len(docs) > maxMetricChecks {
		errs = append(errs, field.TooMany(path, len(docs), maxMetricChecks))
	}
	checks := make([]MetricCheck, 0, len(docs))
	seen := map[string]bool{}
	for i := range docs {
		p := path.Index(i)
		c, cerrs := compileMetricCheck(&docs[i], p, limits)
		errs = append(errs, cerrs...)
		if c.Name != "" && seen[c.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), c.Name))
		}
		seen[c.Name] = true
		if c.query != nil && !hasCanary && usesCanaries(c.query) {
			found.Warnf("%s: uses {{.CanariesRegex}} but the strategy selects no canary: "+
				"it matches no node, so the query finds no data", p.Child("query"))
		}
		checks = append(checks, c)
	}
	found.Fail(errs...)
	return checks
}

// compileMetricCheck checks one check at path.
func compileMetricCheck(
	doc *metricCheckDocument, path *field.Path, limits *Limits,
) (MetricCheck, field.ErrorList) {
	c := MetricCheck{Interval: defaultMetricIntervalSeconds * time.Second}
	var errs field.ErrorList
	switch {
	case doc.Name == nil || *doc.Name == "":
		errs = append(errs, field.Required(path.Child("name"), "a name for Events and the status, such as p99-latency"))
	default:
		c.Name = *doc.Name
		for _, msg := range validation.IsDNS1123Label(c.Name) {
			errs = append(errs, field.Invalid(path.Child("name"), sloconfig.Echo(c.Name), msg))
		}
	}
	errs = append(errs, c.compileEndpoint(doc, path, limits)...)
	errs = append(errs, c.compileQuery(doc.Query, path.Child("query"))...)
	c.Min, c.Max = doc.Min, doc.Max
	switch {
	case c.Min == nil && c.Max == nil:
		errs = append(errs, field.Required(path.Child("max"),
			"a check needs min, max or both: the bounds its number must stay within"))
	case c.Min != nil && c.Max != nil && *c.Min > *c.Max:
		errs = append(errs, field.Invalid(path.Child("min"), *c.Min,
			fmt.Sprintf("must not be greater than max (%g)", *c.Max)))
	}
	const most = maxMetricFailureOrNoDataLimit
	errs = append(errs,
		sloconfig.InRange(path.Child("intervalSeconds"), doc.IntervalSeconds, 1, maxMetricIntervalSeconds)...)
	errs = append(errs, sloconfig.InRange(path.Child("failureLimit"), doc.FailureLimit, 0, most)...)
	errs = append(errs, sloconfig.InRange(path.Child("noDataLimit"), doc.NoDataLimit, 0, most)...)
	c.Interval = time.Duration(valueOr(doc.IntervalSeconds, defaultMetricIntervalSeconds)) * time.Second
	c.FailureLimit, c.NoDataLimit = int(valueOr(doc.FailureLimit, 0)), int(valueOr(doc.NoDataLimit, 0))
	c.DryRun = doc.DryRun != nil && *doc.DryRun
	return c, errs
}

// valueOr is *v, or def when v is not set.
func valueOr(v *int64, def int64) int64 {
	if v == nil {
		return def
	}
	return *v
}

// compileQuery parses the query template and executes it on sample nodes,
// so that a field misspelt or a function misused is an error now, not a
// failed measurement in the middle of a rollout.
func (c *MetricCheck) compileQuery(v *string, path *field.Path) field.ErrorList {
	if v == nil || strings.TrimSpace(*v) == "" {
		return field.ErrorList{field.Required(path,
			`a PromQL query returning one number, such as max(node_latency_seconds{node=~"{{.NodesRegex}}"})`)}
	}
	c.Query = *v
	if len(c.Query) > maxMetricQueryLength {
		return field.ErrorList{field.TooLong(path, "", maxMetricQueryLength)}
	}
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
