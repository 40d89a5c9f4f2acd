package rollout

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Defaults of the strategy's healthGate
// (docs/rollout.md#health-gates).
const (
	// BestEffortLabel and BestEffortClass label the best-effort Pods
	// koordlet evicts: the default of evictions.podSelector.
	BestEffortLabel             = "koordinator.sh/qosClass"
	BestEffortClass             = "BE"
	defaultMaxEvictionsPerNode  = 3
	OnUnhealthyPause            = "pause"
	OnUnhealthyRevert           = "revert"
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

// defaultPodSelector selects the best-effort Pods koordlet evicts.
var defaultPodSelector = labels.SelectorFromSet(labels.Set{BestEffortLabel: BestEffortClass})

// compileHealthGate compiles the strategy's healthGate (without its
// metrics), reporting to found what the schema cannot check: the Pod
// selector, and whether the manager counts any Pod at all.
func compileHealthGate(g *nodeslov1alpha1.HealthGateStrategy, limits *Limits, found *sloconfig.Findings) *HealthGate {
	gate := &HealthGate{
		MaxUnhealthyNodes:   ptr.Deref(g.MaxUnhealthyNodes, intstr.FromString(defaultMaxUnhealthyNodesPct)),
		Conditions:          defaultGateConditions,
		PodSelector:         defaultPodSelector,
		MaxEvictionsPerNode: defaultMaxEvictionsPerNode,
		Revert:              g.OnUnhealthy == OnUnhealthyRevert,
	}
	if limits != nil {
		gate.PodNamespaces = limits.PodNamespaces
	}
	if len(g.NodeConditions) > 0 {
		gate.Conditions = make([]corev1.NodeConditionType, len(g.NodeConditions))
		for i, c := range g.NodeConditions {
			gate.Conditions[i] = corev1.NodeConditionType(c)
		}
	}
	e := g.Evictions
	if e == nil {
		return gate
	}
	p := field.NewPath("healthGate", "evictions")
	if limits != nil && len(limits.PodNamespaces) == 0 {
		found.Warnf("%s: no Pod is counted: the manager counts the Pods of the namespaces its administrator "+
			"lists in --health-gate-pod-namespaces (Helm: healthGate.podNamespaces), and lists none; "+
			"koordlet's own evictions are counted by a metric check on koordlet_pod_eviction "+
			"(docs/rollout.md#evictions)", p)
	}
	if v := e.PodSelector; v != nil {
		selector, empty, errs := sloconfig.CompileLabelSelector(v, p.Child("podSelector"))
		found.Fail(errs...)
		if len(errs) == 0 {
			gate.PodSelector = selector
		}
		if empty {
			found.Warnf("%s: {} selects every Pod, so any container of any Pod on a reached node "+
				"that ends with a non-zero exit code counts as an eviction", p.Child("podSelector"))
		}
	}
	gate.MaxEvictionsPerNode = int(ptr.Deref(e.MaxPerNode, defaultMaxEvictionsPerNode))
	return gate
}
