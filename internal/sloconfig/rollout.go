package sloconfig

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// KeyRollout holds the staged-rollout policy (docs/rollout.md). It is not a
// section of the NodeSLO spec: it decides when a change reaches each node,
// never what a node gets, so it is not in Keys and not in the fingerprint.
const KeyRollout Key = "nodeslo-rollout-config"

// Bounds and defaults of the rollout key (docs/rollout.md#the-key).
const (
	maxRolloutSeconds          = 86400
	defaultStepIntervalSeconds = 60
	defaultCanarySoakSeconds   = 300
	// DefaultRevisionHistoryLimit is how many configurations the revision
	// history keeps when the key does not say (or is absent or invalid).
	DefaultRevisionHistoryLimit = 10
	maxRevisionHistoryLimit     = 100
)

// defaultMaxNodesPerStep is the step size when the key does not set one.
var defaultMaxNodesPerStep = intstr.FromString("10%")

// RolloutPolicy is a compiled, valid nodeslo-rollout-config. It is never
// written after LoadRollout returns.
type RolloutPolicy struct {
	// MaxNodesPerStep is an int >= 1 or a percent "1%".."100%" of the nodes
	// pending when the rollout started; StepSize resolves it.
	MaxNodesPerStep intstr.IntOrString
	StepInterval    time.Duration
	// Canary selects the nodes reached first, all in one step; nil when the
	// key has no canary.
	Canary     labels.Selector
	CanarySoak time.Duration
	Paused     bool
	// RevisionHistoryLimit is how many configurations put in force the
	// revision history keeps, the one in force included.
	RevisionHistoryLimit int
	// HealthGate halts the rollout when reached nodes turn unhealthy; nil
	// when the key has none.
	HealthGate *HealthGate
}

// RevisionHistoryLimit is the number of revisions to keep under this key:
// its revisionHistoryLimit, or the default when the key is absent or
// invalid (an invalid key must not shorten the history an undo needs).
func (r RolloutLoad) RevisionHistoryLimit() int {
	if r.Policy == nil {
		return DefaultRevisionHistoryLimit
	}
	return r.Policy.RevisionHistoryLimit
}

// StepSize is the number of nodes one batch reaches in a rollout that
// started with pending nodes: a percent is rounded up, and is at least 1.
func (p *RolloutPolicy) StepSize(pending int) int {
	// MaxNodesPerStep was validated, so this cannot fail.
	n, _ := intstr.GetScaledValueFromIntOrPercent(&p.MaxNodesPerStep, pending, true)
	return max(n, 1)
}

// IsCanary reports whether a node with these labels is a canary.
func (p *RolloutPolicy) IsCanary(nodeLabels map[string]string) bool {
	return p.Canary != nil && p.Canary.Matches(labels.Set(nodeLabels))
}

// RolloutLoad is what LoadRollout found in the ConfigMap.
type RolloutLoad struct {
	// Present is whether the ConfigMap has the key. Absent: every change
	// reaches every node at once.
	Present bool
	// Policy is the compiled policy; nil when the key is absent or invalid.
	Policy *RolloutPolicy
	// Errors and Warnings are as in a SectionReport: paths relative to the
	// key's document, positions where known.
	Errors   field.ErrorList
	Warnings []string
}

// Valid reports whether the key is absent or its value was accepted. A
// present but invalid key pauses every rollout (docs/rollout.md).
func (r RolloutLoad) Valid() bool { return len(r.Errors) == 0 }

// Messages renders the errors, one line each, prefixed with the key.
func (r RolloutLoad) Messages() []string { return r.report().Messages() }

// WarningMessages renders the warnings, each prefixed with the key.
func (r RolloutLoad) WarningMessages() []string { return r.report().WarningMessages() }

func (r RolloutLoad) report() SectionReport {
	return SectionReport{Key: KeyRollout, Errors: r.Errors, Warnings: r.Warnings}
}

// LoadRollout parses, validates and compiles the rollout key of a
// ConfigMap's data (nil when the ConfigMap does not exist).
func LoadRollout(data map[string]string) RolloutLoad {
	raw, present := data[string(KeyRollout)]
	if !present {
		return RolloutLoad{}
	}
	policy, found := compileRollout(raw)
	errs, warnings := found.report()
	out := RolloutLoad{Present: true, Errors: errs, Warnings: warnings}
	if len(errs) == 0 {
		out.Policy = policy
	}
	return out
}

// rolloutDocument is the key's JSON as written; nil means "not set".
type rolloutDocument struct {
	MaxNodesPerStep      *intstr.IntOrString    `json:"maxNodesPerStep,omitempty"`
	StepIntervalSeconds  *int64                 `json:"stepIntervalSeconds,omitempty"`
	Canary               *rolloutCanaryDocument `json:"canary,omitempty"`
	Paused               *bool                  `json:"paused,omitempty"`
	RevisionHistoryLimit *int64                 `json:"revisionHistoryLimit,omitempty"`
	HealthGate           *healthGateDocument    `json:"healthGate,omitempty"`
}

type rolloutCanaryDocument struct {
	NodeSelector *metav1.LabelSelector `json:"nodeSelector,omitempty"`
	SoakSeconds  *int64                `json:"soakSeconds,omitempty"`
}

// rolloutShape has no list of node entries: the whole document is top-level fields.
var rolloutShape = documentShape{top: fieldsOf(reflect.TypeFor[rolloutDocument]())}

// compileRollout reads the key's document with the same parser and shape
// checks as the other keys (positions, unknown fields with the closest
// name, repeated fields), then checks the bounds.
func compileRollout(raw string) (*RolloutPolicy, *findings) {
	doc, found := parseAndCheck(raw, rolloutShape)
	if found.failed() > 0 {
		return nil, found
	}
	var written rolloutDocument
	if err := fromTree(doc.top, &written); err != nil {
		found.fail(rootError(err.Error()))
		return nil, found
	}
	policy := &RolloutPolicy{
		MaxNodesPerStep: defaultMaxNodesPerStep,
		StepInterval:    defaultStepIntervalSeconds * time.Second,
		CanarySoak:      defaultCanarySoakSeconds * time.Second,

		RevisionHistoryLimit: DefaultRevisionHistoryLimit,
	}
	r := &rules{}
	if v := written.MaxNodesPerStep; v != nil {
		found.fail(validateCountOrPercent(*v, field.NewPath("maxNodesPerStep"), 1)...)
		policy.MaxNodesPerStep = *v
	}
	if v := written.StepIntervalSeconds; v != nil {
		r.between("stepIntervalSeconds", v, 0, maxRolloutSeconds)
		policy.StepInterval = time.Duration(*v) * time.Second
	}
	if v := written.Paused; v != nil {
		policy.Paused = *v
	}
	if v := written.RevisionHistoryLimit; v != nil {
		r.between("revisionHistoryLimit", v, 1, maxRevisionHistoryLimit)
		policy.RevisionHistoryLimit = int(*v)
	}
	if c := written.Canary; c != nil {
		canary := r.at(field.NewPath("canary"))
		canary.between("soakSeconds", c.SoakSeconds, 0, maxRolloutSeconds)
		r.add(canary)
		if c.SoakSeconds != nil {
			policy.CanarySoak = time.Duration(*c.SoakSeconds) * time.Second
		}
		policy.Canary = compileCanarySelector(doc.top["canary"], found)
	}
	if g := written.HealthGate; g != nil {
		var errs field.ErrorList
		policy.HealthGate, errs = compileHealthGate(g)
		found.fail(errs...)
	}
	found.fail(r.errs...)
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
		return field.ErrorList{field.Invalid(path, echo(v.StrVal), want)}
	}
	// Scaled against 100, a percent is its own number.
	percent, err := intstr.GetScaledValueFromIntOrPercent(&v, 100, true)
	if err != nil || percent < lo || percent > 100 {
		return field.ErrorList{field.Invalid(path, echo(v.StrVal), want)}
	}
	return nil
}

// compileCanarySelector compiles canary.nodeSelector, which is required
// once canary is set: a canary without a selector would reach no node
// first, which the operator cannot have meant.
func compileCanarySelector(canary any, found *findings) labels.Selector {
	path := field.NewPath("canary", "nodeSelector")
	tree, _ := canary.(map[string]any)
	selector, empty, errs := compileSelector(tree["nodeSelector"], path)
	if len(errs) > 0 {
		if tree["nodeSelector"] == nil {
			errs = field.ErrorList{field.Required(path,
				"a canary needs a nodeSelector naming the nodes reached first; remove canary to roll out without one")}
		}
		found.fail(errs...)
		return nil
	}
	if empty && found.warning() {
		found.warnings = append(found.warnings, fmt.Sprintf(
			"%s: {} matches every node, so every pending node is a canary and the change reaches all of them in one step", path))
	}
	return selector
}
