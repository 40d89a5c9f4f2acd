package rollout

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The strategy (the NodeSLORollout's spec.strategy), compiled
// (docs/rollout.md#the-strategy). The apiserver checked it against the
// CRD's schema (bounds, enums, names); compiling fills in the defaults
// and checks what a schema cannot. The types keep the name Key from when
// the policy was the retired nodeslo-rollout-config key
// (sloconfig.KeyRollout).

// Bounds and defaults of the strategy (docs/rollout.md#the-strategy).
const (
	defaultStepIntervalSeconds = 60
	defaultCanarySoakSeconds   = 300
	// DefaultRevisionHistoryLimit is how many configurations the revision
	// history keeps when the strategy does not say (or is absent or invalid).
	DefaultRevisionHistoryLimit = 10
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

// Key is the strategy as LoadStrategy compiled it.
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

// keyOf is the Key of a compiled policy and what compiling it found.
func keyOf(policy *Policy, found *sloconfig.Findings) Key {
	errs, warnings := found.Report()
	out := Key{Present: true, Errors: errs, Warnings: warnings}
	if len(errs) == 0 {
		out.Policy = policy
	}
	return out
}

// compileStrategy compiles a strategy: its defaults, and the checks the
// CRD's schema cannot make (selectors, query templates, and with limits
// the hosts and credentials the manager allows), reported to found.
func compileStrategy(s *nodeslov1alpha1.RolloutStrategy, limits *Limits, found *sloconfig.Findings) *Policy {
	policy := &Policy{
		MaxNodesPerStep:      ptr.Deref(s.MaxNodesPerStep, defaultMaxNodesPerStep),
		StepInterval:         secondsOr(s.StepIntervalSeconds, defaultStepIntervalSeconds),
		CanarySoak:           defaultCanarySoakSeconds * time.Second,
		RevisionHistoryLimit: int(ptr.Deref(s.RevisionHistoryLimit, DefaultRevisionHistoryLimit)),
	}
	if c := s.Canary; c != nil {
		policy.CanarySoak = secondsOr(c.SoakSeconds, defaultCanarySoakSeconds)
		policy.Canary = compileCanarySelector(&c.NodeSelector, found)
	}
	if g := s.HealthGate; g != nil {
		policy.HealthGate = compileHealthGate(g, limits, found)
		policy.HealthGate.Metrics = compileMetricChecks(g.Metrics, s.Canary != nil, limits, found)
	}
	return policy
}

// secondsOr is *v seconds, or def seconds when v is not set.
func secondsOr(v *int32, def int32) time.Duration {
	return time.Duration(ptr.Deref(v, def)) * time.Second
}

// compileCanarySelector compiles canary.nodeSelector, whose operators and
// values the schema does not check.
func compileCanarySelector(written *metav1.LabelSelector, found *sloconfig.Findings) labels.Selector {
	path := field.NewPath("canary", "nodeSelector")
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
