package plugin

import (
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// ExplainInputs are the live objects `kubectl nodeslo explain` reads.
type ExplainInputs struct {
	Node *corev1.Node
	// ConfigMap is nil when it does not exist (all defaults).
	ConfigMap *corev1.ConfigMap
	// ConfigMapRef names the ConfigMap looked for, as namespace/name.
	ConfigMapRef string
	// NodeSLO is nil when the controller has not written one (yet).
	NodeSLO *slov1alpha1.NodeSLO
	// History is the ConfigMap's revision history; nil when it could not
	// be read (no permission to list ControllerRevisions).
	History *History
}

// Explanation says, for one node, where each section of its spec comes from
// and whether the stored NodeSLO is what the configuration resolves to now.
type Explanation struct {
	Node         string
	ConfigMapRef string
	ConfigMapSet bool
	Reports      []sloconfig.SectionReport
	Matches      []sloconfig.SectionMatch
	NodeWarnings []sloconfig.NodeWarning
	// BandwidthAnnotation is the node's network-bandwidth annotation, empty
	// when absent; Bandwidth is the totalNetworkBandwidth resolved with it.
	BandwidthAnnotation string
	Bandwidth           string
	NodeSLOFound        bool
	// DifferingSections are the top-level spec fields (JSON names) in which
	// the stored NodeSLO differs from the resolved spec; empty when in sync.
	DifferingSections []string
	// History is the revision history read (nil: not readable), and
	// Revision the number of the newest revision whose configuration
	// resolves to the stored NodeSLO (0: none kept does).
	History  *History
	Revision int64

	// CRDChecked is set when CheckAgainstCRD asked the cluster; DroppedByCRD
	// then lists the node's configured values the installed CRD drops.
	// CRDCheckProblem says why the check could not be made.
	CRDChecked      bool
	DroppedByCRD    []DroppedValue
	CRDCheckProblem string

	// resolved and stored are the specs compared (stored nil: no NodeSLO).
	resolved slov1alpha1.NodeSLOSpec
	stored   *slov1alpha1.NodeSLOSpec
}

// Explain resolves the configuration for the node as the controller does.
// The controller's last good value of an invalid key lives only in its
// memory; here such a key is "frozen", i.e. resolved from the stored
// NodeSLO, which is what the controller keeps too.
func Explain(in ExplainInputs) Explanation {
	var data map[string]string // nil, like empty, means all defaults
	if in.ConfigMap != nil {
		data = in.ConfigMap.Data
	}
	cfg := sloconfig.Load(data, nil)
	var stored *slov1alpha1.NodeSLOSpec
	if in.NodeSLO != nil {
		stored = &in.NodeSLO.Spec
	}
	node := sloconfig.Node{Name: in.Node.Name, Labels: in.Node.Labels, Annotations: in.Node.Annotations}
	resolution := cfg.Resolve(node, stored)
	e := Explanation{
		Node:         in.Node.Name,
		ConfigMapRef: in.ConfigMapRef,
		ConfigMapSet: in.ConfigMap != nil,
		Reports:      cfg.Reports(),
		Matches:      resolution.Matches,
		NodeWarnings: resolution.Warnings,
		NodeSLOFound: stored != nil,
		resolved:     resolution.Spec,
		stored:       stored,
	}
	if value, ok := in.Node.Annotations[sloconfig.NetworkBandwidthAnnotation]; ok {
		e.BandwidthAnnotation = value
		if system := resolution.Spec.SystemStrategy; system != nil {
			e.Bandwidth = system.TotalNetworkBandwidth.String()
		}
	}
	e.History = in.History
	if stored != nil {
		e.DifferingSections = differingSections(stored, &resolution.Spec)
		e.Revision = matchingRevision(in.History, node, stored)
	}
	return e
}

// matchingRevision is the newest revision whose configuration resolves the
// node to its stored spec: which configuration the node's agent acts on,
// during a staged rollout or after an undo.
func matchingRevision(h *History, node sloconfig.Node, stored *slov1alpha1.NodeSLOSpec) int64 {
	if h == nil {
		return 0
	}
	for _, r := range slices.Backward(h.Revisions) {
		res := sloconfig.Load(r.Data, nil).Resolve(node, stored)
		if sloconfig.SpecEqual(stored, &res.Spec) {
			return r.Number
		}
	}
	return 0
}

// differingSections compares the specs field by field with the engine's
// semantic equality (so 1000M and 1G, or nil and empty, count as the same)
// and names each differing top-level field as on the wire. It walks the
// struct so that a field added to the API is compared without a change here.
func differingSections(stored, resolved *slov1alpha1.NodeSLOSpec) []string {
	if sloconfig.SpecEqual(stored, resolved) {
		return nil
	}
	var differing []string
	specType := reflect.TypeFor[slov1alpha1.NodeSLOSpec]()
	for i := range specType.NumField() {
		var onlyStored, onlyResolved slov1alpha1.NodeSLOSpec
		reflect.ValueOf(&onlyStored).Elem().Field(i).Set(reflect.ValueOf(stored).Elem().Field(i))
		reflect.ValueOf(&onlyResolved).Elem().Field(i).Set(reflect.ValueOf(resolved).Elem().Field(i))
		if !sloconfig.SpecEqual(&onlyStored, &onlyResolved) {
			name, _, _ := strings.Cut(specType.Field(i).Tag.Get("json"), ",")
			differing = append(differing, name)
		}
	}
	return differing
}
