package plugin

import (
	corev1 "k8s.io/api/core/v1"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
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
	NodeSLOFound bool
	// DifferingSections are the top-level spec fields (JSON names) in which
	// the stored NodeSLO differs from the resolved spec; empty when in sync.
	DifferingSections []string
}

// Explain resolves the configuration for the node as the controller does.
// The controller's last good value of an invalid key lives only in its
// memory; here such a key is "frozen", i.e. resolved from the stored
// NodeSLO, which is what the controller keeps too.
func Explain(in ExplainInputs) Explanation {
	var data map[string]string
	if in.ConfigMap != nil {
		data = in.ConfigMap.Data
		if data == nil {
			data = map[string]string{}
		}
	}
	cfg := sloconfig.Load(data, nil)
	var stored *slov1alpha1.NodeSLOSpec
	if in.NodeSLO != nil {
		stored = &in.NodeSLO.Spec
	}
	resolution := cfg.Resolve(sloconfig.Node{
		Name:        in.Node.Name,
		Labels:      in.Node.Labels,
		Annotations: in.Node.Annotations,
	}, stored)
	e := Explanation{
		Node:         in.Node.Name,
		ConfigMapRef: in.ConfigMapRef,
		ConfigMapSet: in.ConfigMap != nil,
		Reports:      cfg.Reports(),
		Matches:      resolution.Matches,
		NodeWarnings: resolution.Warnings,
		NodeSLOFound: stored != nil,
	}
	if stored != nil {
		e.DifferingSections = differingSections(stored, &resolution.Spec)
	}
	return e
}

// specSection picks one top-level field of a spec, named as on the wire.
type specSection struct {
	name string
	only func(*slov1alpha1.NodeSLOSpec) slov1alpha1.NodeSLOSpec
}

var specSections = []specSection{
	{"resourceUsedThresholdWithBE", func(s *slov1alpha1.NodeSLOSpec) slov1alpha1.NodeSLOSpec {
		return slov1alpha1.NodeSLOSpec{ResourceUsedThresholdWithBE: s.ResourceUsedThresholdWithBE}
	}},
	{"resourceQOSStrategy", func(s *slov1alpha1.NodeSLOSpec) slov1alpha1.NodeSLOSpec {
		return slov1alpha1.NodeSLOSpec{ResourceQOSStrategy: s.ResourceQOSStrategy}
	}},
	{"cpuBurstStrategy", func(s *slov1alpha1.NodeSLOSpec) slov1alpha1.NodeSLOSpec {
		return slov1alpha1.NodeSLOSpec{CPUBurstStrategy: s.CPUBurstStrategy}
	}},
	{"systemStrategy", func(s *slov1alpha1.NodeSLOSpec) slov1alpha1.NodeSLOSpec {
		return slov1alpha1.NodeSLOSpec{SystemStrategy: s.SystemStrategy}
	}},
	{"extensions", func(s *slov1alpha1.NodeSLOSpec) slov1alpha1.NodeSLOSpec {
		return slov1alpha1.NodeSLOSpec{Extensions: s.Extensions}
	}},
	{"hostApplications", func(s *slov1alpha1.NodeSLOSpec) slov1alpha1.NodeSLOSpec {
		return slov1alpha1.NodeSLOSpec{HostApplications: s.HostApplications}
	}},
}

// differingSections compares section by section with the engine's semantic
// equality, so that 1000M and 1G, or nil and empty, count as the same.
func differingSections(stored, resolved *slov1alpha1.NodeSLOSpec) []string {
	if sloconfig.SpecEqual(stored, resolved) {
		return nil
	}
	var differing []string
	for _, section := range specSections {
		a, b := section.only(stored), section.only(resolved)
		if !sloconfig.SpecEqual(&a, &b) {
			differing = append(differing, section.name)
		}
	}
	return differing
}
