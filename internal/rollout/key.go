package rollout

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The strategy (the NodeSLORollout's spec.strategy), compiled from its
// JSON: its types, parsing and validation (docs/rollout.md#the-strategy).
// It goes through sloconfig's parser, so its messages read like those of
// the spec's keys. The types keep the name Key from when the policy was
// the retired nodeslo-rollout-config key (sloconfig.KeyRollout).

// Bounds and defaults of the strategy (docs/rollout.md#the-strategy).
const (
	maxRolloutSeconds          = 86400
	defaultStepIntervalSeconds = 60
	defaultCanarySoakSeconds   = 300
	// DefaultRevisionHistoryLimit is how many configurations the revision
	// history keeps when the strategy does not say (or is absent or invalid).
	DefaultRevisionHistoryLimit = 10
	maxRevisionHistoryLimit     = 100
)

// defaultMaxNodesPerStep is the step size when the strategy does not set one.
var defaultMaxNodesPerStep = intstr.FromString("10%")

// Policy is a compiled, valid strategy, with spec.paused. It is never
// written after LoadStrategy returns.
type Policy struct {
	// MaxNodesPerStep is an int >= 1 or a percent "1%".."100%" of the nodes
	// pending when the rollout started; StepSize resolves it.
	MaxNodesPerStep intstr.IntOrString
	StepInterval    time.Duration
	// Canary selects the nodes reached first, all in one step; nil when the
	// strategy has no canary.
	Canary     labels.Selector
	CanarySoak time.Duration
	Paused     bool
	// RevisionHistoryLimit is how many configurations put in force the
	// revision history keeps, the one in force included.
	RevisionHistoryLimit int
	// HealthGate halts the rollout when reached nodes turn unhealthy; nil
	// when the strategy has none.
	HealthGate *HealthGate
}

// RevisionHistoryLimit is the number of revisions to keep under this
// strategy: its revisionHistoryLimit, or the default when the strategy is
// absent or invalid (an invalid one must not shorten the history an undo
// needs).
func (r Key) RevisionHistoryLimit() int {
	if r.Policy == nil {
		return DefaultRevisionHistoryLimit
	}
	return r.Policy.RevisionHistoryLimit
}

// StepSize is the number of nodes one batch reaches in a rollout that
// started with pending nodes: a percent is rounded up, and is at least 1.
func (p *Policy) StepSize(pending int) int {
	// MaxNodesPerStep was validated, so this cannot fail.
	n, _ := intstr.GetScaledValueFromIntOrPercent(&p.MaxNodesPerStep, pending, true)
	return max(n, 1)
}

// IsCanary reports whether a node with these labels is a canary.
func (p *Policy) IsCanary(nodeLabels map[string]string) bool {
	return p.Canary != nil && p.Canary.Matches(labels.Set(nodeLabels))
}

// Key is the strategy as LoadStrategy (or LoadKey) compiled it.
type Key struct {
	// Present is whether there is a strategy. Absent: every change
	// reaches every node at once.
	Present bool
	// Policy is the compiled policy; nil when the strategy is absent or invalid.
	Policy *Policy
	// Errors and Warnings are as in a sloconfig.SectionReport: paths relative to the
	// strategy, positions where known.
	Errors   field.ErrorList
	Warnings []string
	// Raw is the strategy's JSON (StrategyJSON; "": none).
	Raw string
}

// Valid reports whether the strategy is absent or was accepted. A
// present but invalid strategy pauses every rollout (docs/rollout.md).
func (r Key) Valid() bool { return len(r.Errors) == 0 }

// Messages renders the errors, one line each, with their path under
// spec.strategy.
func (r Key) Messages() []string {
	out := make([]string, len(r.Errors))
	for i, e := range r.Errors {
		out[i] = fmt.Sprintf("%s: %s", strategyPath.String()+prefixed(e.Field), e.ErrorBody())
	}
	return out
}

// WarningMessages renders the warnings, each prefixed with spec.strategy.
func (r Key) WarningMessages() []string {
	out := make([]string, len(r.Warnings))
	for i, w := range r.Warnings {
		out[i] = fmt.Sprintf("%s.%s", strategyPath, w)
	}
	return out
}

// prefixed is a field path below spec.strategy as its suffix ("" for the
// strategy itself).
func prefixed(p string) string {
	if p == "" {
		return ""
	}
	return "." + p
}

// LoadKey parses, validates and compiles a strategy's JSON held in data
// under the retired rollout key (sloconfig.KeyRollout), without the
// manager's limits. The controller no longer reads that key (it loads
// spec.strategy with LoadStrategy); tests still hold a strategy there.
func LoadKey(data map[string]string) Key { return loadKey(data, nil) }

// LoadKeyWithin is LoadKey checked also against what the manager allows a
// metric check to reach (its flags, and its credentials' addresses files
// as the caller read them), as LoadStrategy with limits does.
func LoadKeyWithin(data map[string]string, limits Limits) Key { return loadKey(data, &limits) }

func loadKey(data map[string]string, limits *Limits) Key {
	raw, present := data[string(sloconfig.KeyRollout)]
	if !present {
		return Key{}
	}
	return loadRaw(raw, limits)
}

// loadRaw compiles a strategy's JSON.
func loadRaw(raw string, limits *Limits) Key {
	if err := keyTooLarge(raw); err != nil {
		return Key{Present: true, Errors: field.ErrorList{err}}
	}
	policy, found := compileKey(raw, limits)
	errs, warnings := found.Report()
	out := Key{Present: true, Errors: errs, Warnings: warnings}
	if len(errs) == 0 {
		out.Policy = policy
	}
	return out
}

// keyDocument is the strategy's JSON as written, with the "paused" of the
// retired key's JSON (LoadStrategy takes spec.paused instead); nil means
// "not set".
type keyDocument struct {
	MaxNodesPerStep      *intstr.IntOrString `json:"maxNodesPerStep,omitempty"`
	StepIntervalSeconds  *int64              `json:"stepIntervalSeconds,omitempty"`
	Canary               *canaryDocument     `json:"canary,omitempty"`
	Paused               *bool               `json:"paused,omitempty"`
	RevisionHistoryLimit *int64              `json:"revisionHistoryLimit,omitempty"`
	HealthGate           *healthGateDocument `json:"healthGate,omitempty"`
}

type canaryDocument struct {
	NodeSelector *metav1.LabelSelector `json:"nodeSelector,omitempty"`
	SoakSeconds  *int64                `json:"soakSeconds,omitempty"`
}

// compileKey reads the strategy's JSON with the same parser and shape
// checks as the ConfigMap's keys (positions, unknown fields with the closest
// name, repeated fields), then checks the bounds.
func compileKey(raw string, limits *Limits) (*Policy, *sloconfig.Findings) {
	written, found := sloconfig.DecodeDocument[keyDocument](raw)
	if written == nil {
		return nil, found
	}
	policy := &Policy{
		MaxNodesPerStep: defaultMaxNodesPerStep,
		StepInterval:    defaultStepIntervalSeconds * time.Second,
		CanarySoak:      defaultCanarySoakSeconds * time.Second,

		RevisionHistoryLimit: DefaultRevisionHistoryLimit,
	}
	// Out-of-range numbers are reported last, after the other errors.
	var ranges field.ErrorList
	if v := written.MaxNodesPerStep; v != nil {
		found.Fail(validateCountOrPercent(*v, field.NewPath("maxNodesPerStep"), 1)...)
		policy.MaxNodesPerStep = *v
	}
	if v := written.StepIntervalSeconds; v != nil {
		ranges = append(ranges, sloconfig.InRange(field.NewPath("stepIntervalSeconds"), v, 0, maxRolloutSeconds)...)
		policy.StepInterval = time.Duration(*v) * time.Second
	}
	if v := written.Paused; v != nil {
		policy.Paused = *v
	}
	if v := written.RevisionHistoryLimit; v != nil {
		ranges = append(ranges, sloconfig.InRange(field.NewPath("revisionHistoryLimit"), v, 1, maxRevisionHistoryLimit)...)
		policy.RevisionHistoryLimit = int(*v)
	}
	if c := written.Canary; c != nil {
		soak := field.NewPath("canary", "soakSeconds")
		ranges = append(ranges, sloconfig.InRange(soak, c.SoakSeconds, 0, maxRolloutSeconds)...)
		if c.SoakSeconds != nil {
			policy.CanarySoak = time.Duration(*c.SoakSeconds) * time.Second
		}
		policy.Canary = compileCanarySelector(c.NodeSelector, found)
	}
	if g := written.HealthGate; g != nil {
		var errs field.ErrorList
		policy.HealthGate, errs = compileHealthGate(g, limits, found)
		found.Fail(errs...)
		policy.HealthGate.Metrics = compileMetricChecks(g.Metrics, written.Canary != nil, limits, found)
	}
	found.Fail(ranges...)
	return policy, found
}

// validateCountOrPercent checks a count of nodes: an int >= lo, or a
// percent from lo% to 100%.
func validateCountOrPercent(v intstr.IntOrString, path *field.Path, lo int) field.ErrorList {
	if v.Type == intstr.Int {
		if int(v.IntVal) < lo {
			return field.ErrorList{field.Invalid(path, v.IntVal, fmt.Sprintf("must be greater than or equal to %d", lo))}
		}
		return nil
	}
	want := fmt.Sprintf(`must be an integer >= %d or a percent from "%d%%" to "100%%"`, lo, lo)
	if !strings.HasSuffix(v.StrVal, "%") {
		return field.ErrorList{field.Invalid(path, sloconfig.Echo(v.StrVal), want)}
	}
	// Scaled against 100, a percent is its own number.
	percent, err := intstr.GetScaledValueFromIntOrPercent(&v, 100, true)
	if err != nil || percent < lo || percent > 100 {
		return field.ErrorList{field.Invalid(path, sloconfig.Echo(v.StrVal), want)}
	}
	return nil
}

// compileCanarySelector compiles canary.nodeSelector, which is required
// once canary is set: a canary without a selector would reach no node
// first, which the operator cannot have meant.
func compileCanarySelector(written *metav1.LabelSelector, found *sloconfig.Findings) labels.Selector {
	path := field.NewPath("canary", "nodeSelector")
	if written == nil {
		found.Fail(field.Required(path,
			"a canary needs a nodeSelector naming the nodes reached first; remove canary to roll out without one"))
		return nil
	}
	selector, empty, errs := sloconfig.CompileLabelSelector(written, path)
	if len(errs) > 0 {
		found.Fail(errs...)
		return nil
	}
	if empty {
		found.Warnf("%s: {} matches every node, so every pending node is a canary "+
			"and the change reaches all of them in one step", path)
	}
	return selector
}
