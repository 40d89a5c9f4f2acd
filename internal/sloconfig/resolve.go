package sloconfig

import (
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
)

// resolve builds a node's spec from the compiled sections: no parsing, no
// merging and no copying beyond the one SystemStrategy a bandwidth
// annotation changes.
func (c *Config) resolve(node Node, current *slov1alpha1.NodeSLOSpec) Resolution {
	r := Resolution{Matches: make([]SectionMatch, 0, len(Keys))}
	spec := &r.Spec
	spec.ResourceUsedThresholdWithBE = resolveSection(c, &r, 0, &c.threshold, node.Labels, current,
		func(s *slov1alpha1.NodeSLOSpec) (*thresholdStrategy, bool) { return has(s.ResourceUsedThresholdWithBE) })
	spec.ResourceQOSStrategy = resolveSection(c, &r, 1, &c.qos, node.Labels, current,
		func(s *slov1alpha1.NodeSLOSpec) (*qosStrategy, bool) { return has(s.ResourceQOSStrategy) })
	spec.CPUBurstStrategy = resolveSection(c, &r, 2, &c.burst, node.Labels, current,
		func(s *slov1alpha1.NodeSLOSpec) (*burstStrategy, bool) { return has(s.CPUBurstStrategy) })
	spec.SystemStrategy = resolveSection(c, &r, 3, &c.system, node.Labels, current,
		func(s *slov1alpha1.NodeSLOSpec) (*systemStrategy, bool) { return has(s.SystemStrategy) })
	// A stored spec without host applications has the value "none".
	spec.HostApplications = resolveSection(c, &r, 4, &c.hostApps, node.Labels, current,
		func(s *slov1alpha1.NodeSLOSpec) (hostAppList, bool) { return s.HostApplications, true })
	spec.SystemStrategy = applyBandwidthAnnotation(spec.SystemStrategy, node, &r)
	spec.Extensions = emptyExtensions
	return r
}

// has reports a stored section that is present.
func has[T any](value *T) (*T, bool) { return value, value != nil }

// resolveSection picks the value of the section at index i of Keys for a
// node and records how it was chosen.
// A frozen section comes from current, through stored, when current has it.
func resolveSection[V any](c *Config, r *Resolution, i int, s *section[V], nodeLabels map[string]string,
	current *slov1alpha1.NodeSLOSpec, stored func(*slov1alpha1.NodeSLOSpec) (V, bool)) V {
	key, state := c.reports[i].Key, c.reports[i].State
	if state == StateFrozen {
		r.Matches = append(r.Matches, SectionMatch{Key: key, Index: -1, State: state})
		if current != nil {
			if v, ok := stored(current); ok {
				return v
			}
		}
		return s.fallback
	}
	ch := s.pick(nodeLabels)
	if len(ch.also) > 0 {
		r.Warnings = append(r.Warnings, NodeWarning{Reason: ReasonMultipleNodeStrategies, Message: s.multipleMatchesMessage(key, ch)})
	}
	r.Matches = append(r.Matches, SectionMatch{Key: key, Strategy: ch.name, Index: ch.index, State: state})
	return ch.value
}
