package rollout

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Defaults and bounds of the strategy's healthGate
// (docs/rollout.md#health-gates).
const (
	// BestEffortLabel and BestEffortClass label the best-effort Pods
	// koordlet evicts: the default of evictions.podSelector.
	BestEffortLabel             = "koordinator.sh/qosClass"
	BestEffortClass             = "BE"
	defaultMaxEvictionsPerNode  = 3
	maxEvictionsPerNodeBound    = 100000
	OnUnhealthyPause            = "pause"
	OnUnhealthyRevert           = "revert"
	maxHealthGateListLength     = 32
	defaultMaxUnhealthyNodesPct = "10%"
)

// defaultGateConditions are the Node conditions a gate watches when the
// strategy does not list them.
var defaultGateConditions = []corev1.NodeConditionType{
	corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure,
}

// HealthGate is a compiled healthGate of the strategy: when more of the
// nodes a rollout reached turn unhealthy than it allows, the rollout halts.
type HealthGate struct {
	// MaxUnhealthyNodes is an int >= 0 or a percent "0%".."100%" of the
	// nodes reached; MaxUnhealthy resolves it.
	MaxUnhealthyNodes intstr.IntOrString
	// Conditions are the Node condition types watched. Ready is bad when
	// not True; any other is bad when True (the pressure conditions).
	Conditions []corev1.NodeConditionType
	// PodSelector selects the Pods whose evictions count (the kubelet's
	// and the apiserver's report of them, never an Event) in PodNamespaces,
	// and MaxEvictionsPerNode is how many a reached node may show.
	// PodNamespaces are the manager's (Limits.PodNamespaces), never the
	// strategy's: whoever may create a Pod there can make its failures count,
	// so only the administrator opts a namespace in; empty: no Pod counts.
	PodSelector         labels.Selector
	PodNamespaces       []string
	MaxEvictionsPerNode int
	// Revert: on a halt, write the previous revision back (onUnhealthy
	// "revert"); otherwise only pause.
	Revert bool
	// Metrics are the checks on Prometheus (key_metricgate.go); a failed
	// one halts whatever the nodes show.
	Metrics []MetricCheck
}

// MaxUnhealthy is how many unhealthy nodes the gate tolerates among
// reached nodes: a percent is rounded down, so a gate of "10%" over fewer
// than ten reached nodes halts on the first unhealthy one.
func (g *HealthGate) MaxUnhealthy(reached int) int {
	// MaxUnhealthyNodes was validated, so this cannot fail.
	n, _ := intstr.GetScaledValueFromIntOrPercent(&g.MaxUnhealthyNodes, reached, false)
	return n
}

// ConditionNames lists the condition types watched, as written in the strategy.
func (g *HealthGate) ConditionNames() []string {
	names := make([]string, len(g.Conditions))
	for i, c := range g.Conditions {
		names[i] = string(c)
	}
	return names
}

// OnUnhealthy is the gate's onUnhealthy, as written in the strategy.
func (g *HealthGate) OnUnhealthy() string {
	if g.Revert {
		return OnUnhealthyRevert
	}
	return OnUnhealthyPause
}

// Watches reports whether the gate watches condition type t.
func (g *HealthGate) Watches(t corev1.NodeConditionType) bool {
	return slices.Contains(g.Conditions, t)
}

// ConditionBad reports whether a watched condition of type t with status s
// is bad: Ready not True, any other condition True.
func ConditionBad(t corev1.NodeConditionType, s corev1.ConditionStatus) bool {
	if t == corev1.NodeReady {
		return s != corev1.ConditionTrue
	}
	return s == corev1.ConditionTrue
}

// healthGateDocument is healthGate as written; nil means "not set".
type healthGateDocument struct {
	MaxUnhealthyNodes *intstr.IntOrString   `json:"maxUnhealthyNodes,omitempty"`
	NodeConditions    []string              `json:"nodeConditions,omitempty"`
	Evictions         *evictionsDocument    `json:"evictions,omitempty"`
	OnUnhealthy       *string               `json:"onUnhealthy,omitempty"`
	Metrics           []metricCheckDocument `json:"metrics,omitempty"`
}

// evictionsDocument is healthGate.evictions as written. Reasons, the
// Event reasons of earlier versions, is read only to warn that it is
// ignored: the retired key's JSON that sets it stays valid (the strategy
// has no such field).
type evictionsDocument struct {
	PodSelector *metav1.LabelSelector `json:"podSelector,omitempty"`
	MaxPerNode  *int64                `json:"maxPerNode,omitempty"`
	Reasons     []string              `json:"reasons,omitempty"`
}

// defaultPodSelector selects koordlet's best-effort Pods.
var defaultPodSelector = labels.SelectorFromSet(labels.Set{BestEffortLabel: BestEffortClass})

// compileHealthGate checks healthGate and fills in its defaults. An empty
// list reads as unset, as in the ConfigMap's keys: the defaults apply. The
// Pods counted are those of the manager's namespaces (limits; nil: not
// known, so none). Warnings go to found.
func compileHealthGate(doc *healthGateDocument, limits *Limits, found *sloconfig.Findings) (
	*HealthGate, field.ErrorList) {
	path := field.NewPath("healthGate")
	gate := &HealthGate{
		MaxUnhealthyNodes:   intstr.FromString(defaultMaxUnhealthyNodesPct),
		Conditions:          defaultGateConditions,
		PodSelector:         defaultPodSelector,
		MaxEvictionsPerNode: defaultMaxEvictionsPerNode,
	}
	if limits != nil {
		gate.PodNamespaces = limits.PodNamespaces
	}
	var errs field.ErrorList
	if v := doc.MaxUnhealthyNodes; v != nil {
		errs = append(errs, validateCountOrPercent(*v, path.Child("maxUnhealthyNodes"), 0)...)
		gate.MaxUnhealthyNodes = *v
	}
	if v := doc.NodeConditions; len(v) > 0 {
		p := path.Child("nodeConditions")
		errs = append(errs, validateNames(v, p, "a Node condition type such as Ready or MemoryPressure")...)
		gate.Conditions = make([]corev1.NodeConditionType, len(v))
		for i, c := range v {
			gate.Conditions[i] = corev1.NodeConditionType(c)
		}
	}
	if e := doc.Evictions; e != nil {
		p := path.Child("evictions")
		if limits != nil && len(limits.PodNamespaces) == 0 {
			found.Warnf("%s: no Pod is counted: the manager counts the Pods of the namespaces its administrator "+
				"lists in --health-gate-pod-namespaces (Helm: healthGate.podNamespaces), and lists none; "+
				"koordlet's own evictions are counted by a metric check on koordlet_pod_eviction "+
				"(docs/rollout.md#evictions)", p)
		}
		if e.Reasons != nil {
			found.Warnf("%s: ignored: an Event is no longer counted, as anyone who may create one in any "+
				"namespace could halt or revert a rollout; the gate counts the evictions the kubelet and "+
				"the apiserver report on the Pods of %s in the namespaces the manager lists, and koordlet's "+
				"through a metric check (docs/rollout.md#evictions)",
				p.Child("reasons"), p.Child("podSelector"))
		}
		if v := e.PodSelector; v != nil {
			selector, empty, selErrs := sloconfig.CompileLabelSelector(v, p.Child("podSelector"))
			errs = append(errs, selErrs...)
			if len(selErrs) == 0 {
				gate.PodSelector = selector
			}
			if empty {
				found.Warnf("%s: {} selects every Pod, so any container of any Pod on a reached node "+
					"that ends with a non-zero exit code counts as an eviction", p.Child("podSelector"))
			}
		}
		if v := e.MaxPerNode; v != nil {
			if *v < 0 || *v > maxEvictionsPerNodeBound {
				errs = append(errs, field.Invalid(p.Child("maxPerNode"), *v,
					validation.InclusiveRangeError(0, maxEvictionsPerNodeBound)))
			}
			gate.MaxEvictionsPerNode = int(*v)
		}
	}
	if v := doc.OnUnhealthy; v != nil {
		switch *v {
		case OnUnhealthyPause:
		case OnUnhealthyRevert:
			gate.Revert = true
		default:
			errs = append(errs, field.NotSupported(path.Child("onUnhealthy"), sloconfig.Echo(*v),
				[]string{OnUnhealthyPause, OnUnhealthyRevert}))
		}
	}
	return gate, errs
}

// validateNames checks a list of condition types: at most
// a few dozen, each a non-empty name without spaces, none twice.
func validateNames(names []string, path *field.Path, what string) field.ErrorList {
	var errs field.ErrorList
	if len(names) > maxHealthGateListLength {
		errs = append(errs, field.TooMany(path, len(names), maxHealthGateListLength))
	}
	seen := map[string]bool{}
	for i, n := range names {
		switch {
		case n == "" || strings.ContainsAny(n, " \t\n,"):
			errs = append(errs, field.Invalid(path.Index(i), sloconfig.Echo(n),
				fmt.Sprintf("must be %s: not empty, no spaces or commas", what)))
		case seen[n]:
			errs = append(errs, field.Duplicate(path.Index(i), sloconfig.Echo(n)))
		}
		seen[n] = true
	}
	return errs
}
