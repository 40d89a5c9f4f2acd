package sloconfig

import (
	"fmt"
)

// applyBandwidthAnnotation lets a valid node.koordinator.sh/network-bandwidth
// annotation replace the strategy's totalNetworkBandwidth. The strategy is
// shared by many nodes, so it is copied, never changed. An invalid value is
// ignored (the strategy's value stays) and reported, unlike Koordinator,
// which drops the whole systemStrategy.
func applyBandwidthAnnotation(s *systemStrategy, node Node, r *Resolution) *systemStrategy {
	raw, ok := node.Annotations[NetworkBandwidthAnnotation]
	if !ok || s == nil {
		return s
	}
	q, err := parseQuantity(raw)
	if err == nil {
		err = checkBandwidth(q)
	}
	if err != nil {
		// String caches its result inside the Quantity, so it is called on
		// a copy: s is shared by every goroutine resolving nodes.
		kept := s.TotalNetworkBandwidth.DeepCopy()
		r.Warnings = append(r.Warnings, NodeWarning{
			Reason: ReasonInvalidNetworkBandwidth,
			Message: fmt.Sprintf("annotation %s=%q is ignored: %v; the node keeps totalNetworkBandwidth %s from %s",
				NetworkBandwidthAnnotation, echo(raw), err, kept.String(), KeySystem),
		})
		return s
	}
	if q.Cmp(s.TotalNetworkBandwidth) == 0 {
		return s
	}
	overridden := *s
	overridden.TotalNetworkBandwidth = q
	return &overridden
}
