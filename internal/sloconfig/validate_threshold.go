package sloconfig

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// validateResourceThreshold checks the bounds and cross-field rules of
// resourceUsedThresholdWithBE (docs/nodeslo-api.md#resourcethresholdstrategy).
func validateResourceThreshold(s *slov1alpha1.ResourceThresholdStrategy, r *rules) field.ErrorList {
	r.between("cpuSuppressThresholdPercent", s.CPUSuppressThresholdPercent, 0, 100)
	r.between("cpuSuppressMinPercent", s.CPUSuppressMinPercent, 0, 100)
	oneOf(r, "cpuSuppressPolicy", s.CPUSuppressPolicy, slov1alpha1.CPUSetPolicy, slov1alpha1.CPUCfsQuotaPolicy)

	r.thresholdPair("memoryEvictThresholdPercent", s.MemoryEvictThresholdPercent,
		"memoryEvictLowerPercent", s.MemoryEvictLowerPercent, true)
	r.thresholdPair("memoryAllocatableEvictThresholdPercent", s.MemoryAllocatableEvictThresholdPercent,
		"memoryAllocatableEvictLowerPercent", s.MemoryAllocatableEvictLowerPercent, false)
	r.thresholdPair("cpuEvictBESatisfactionUpperPercent", s.CPUEvictBESatisfactionUpperPercent,
		"cpuEvictBESatisfactionLowerPercent", s.CPUEvictBESatisfactionLowerPercent, true)
	r.between("cpuEvictBEUsageThresholdPercent", s.CPUEvictBEUsageThresholdPercent, 0, 100)
	r.above("cpuEvictTimeWindowSeconds", s.CPUEvictTimeWindowSeconds, 0)
	r.thresholdPair("cpuEvictThresholdPercent", s.CPUEvictThresholdPercent,
		"cpuEvictLowerPercent", s.CPUEvictLowerPercent, true)
	r.thresholdPair("cpuAllocatableEvictThresholdPercent", s.CPUAllocatableEvictThresholdPercent,
		"cpuAllocatableEvictLowerPercent", s.CPUAllocatableEvictLowerPercent, false)
	oneOf(r, "cpuEvictPolicy", s.CPUEvictPolicy, slov1alpha1.EvictByRealLimitPolicy, slov1alpha1.EvictByAllocatablePolicy)

	r.between32("allocatableEvictPriorityThreshold", s.AllocatableEvictPriorityThreshold, 0, 7999)
	return r.errs
}

// thresholdPair checks a threshold and the lower mark it falls back to:
// both percentages (0..100 when capped, else at least 0), lower below upper.
func (r *rules) thresholdPair(upperName string, upper *int64, lowerName string, lower *int64, capped bool) {
	for _, p := range []struct {
		name  string
		value *int64
	}{{upperName, upper}, {lowerName, lower}} {
		if capped {
			r.between(p.name, p.value, 0, 100)
		} else {
			r.atLeast(p.name, p.value, 0)
		}
	}
	r.less(lowerName, lower, upperName, upper)
}
