package sloconfig

import (
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// resolve builds a node's spec from the compiled sections: no parsing, no
// merging and no copying beyond the one SystemStrategy a bandwidth
// annotation changes. c.reports was filled from keyTable in the same order.
func (c *Config) resolve(node Node, current *slov1alpha1.NodeSLOSpec) Resolution {
	r := Resolution{Matches: make([]SectionMatch, 0, len(keyTable))}
	for i, k := range keyTable {
		k.resolve(c, c.reports[i], node, current, &r)
	}
	system := r.Spec.SystemStrategy
	r.Spec.SystemStrategy = applyBandwidthAnnotation(system, node, &r)
	r.Spec.Extensions = emptyExtensions
	r.ownSections = !c.ReadsStoredSpec() && r.Spec.SystemStrategy == system
	return r
}
