package sloconfig

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
)

// validateResourceThreshold checks the bounds and cross-field rules of
// resourceUsedThresholdWithBE (nodeslo-api.md).
func validateResourceThreshold(s *slov1alpha1.ResourceThresholdStrategy, path *field.Path) field.ErrorList {
	r := &rules{path: path}
	r.between("cpuSuppressThresholdPercent", s.CPUSuppressThresholdPercent, 0, 100)
	r.between("cpuSuppressMinPercent", s.CPUSuppressMinPercent, 0, 100)
	oneOf(r, "cpuSuppressPolicy", s.CPUSuppressPolicy, slov1alpha1.CPUSetPolicy, slov1alpha1.CPUCfsQuotaPolicy)

	r.between("memoryEvictThresholdPercent", s.MemoryEvictThresholdPercent, 0, 100)
	r.between("memoryEvictLowerPercent", s.MemoryEvictLowerPercent, 0, 100)
	r.less("memoryEvictLowerPercent", s.MemoryEvictLowerPercent, "memoryEvictThresholdPercent", s.MemoryEvictThresholdPercent)
	r.atLeast("memoryAllocatableEvictThresholdPercent", s.MemoryAllocatableEvictThresholdPercent, 0)
	r.atLeast("memoryAllocatableEvictLowerPercent", s.MemoryAllocatableEvictLowerPercent, 0)
	r.less("memoryAllocatableEvictLowerPercent", s.MemoryAllocatableEvictLowerPercent,
		"memoryAllocatableEvictThresholdPercent", s.MemoryAllocatableEvictThresholdPercent)

	r.between("cpuEvictBESatisfactionUpperPercent", s.CPUEvictBESatisfactionUpperPercent, 0, 100)
	r.between("cpuEvictBESatisfactionLowerPercent", s.CPUEvictBESatisfactionLowerPercent, 0, 100)
	r.less("cpuEvictBESatisfactionLowerPercent", s.CPUEvictBESatisfactionLowerPercent,
		"cpuEvictBESatisfactionUpperPercent", s.CPUEvictBESatisfactionUpperPercent)
	r.between("cpuEvictBEUsageThresholdPercent", s.CPUEvictBEUsageThresholdPercent, 0, 100)
	r.above("cpuEvictTimeWindowSeconds", s.CPUEvictTimeWindowSeconds, 0)
	r.between("cpuEvictThresholdPercent", s.CPUEvictThresholdPercent, 0, 100)
	r.between("cpuEvictLowerPercent", s.CPUEvictLowerPercent, 0, 100)
	r.less("cpuEvictLowerPercent", s.CPUEvictLowerPercent, "cpuEvictThresholdPercent", s.CPUEvictThresholdPercent)
	r.atLeast("cpuAllocatableEvictThresholdPercent", s.CPUAllocatableEvictThresholdPercent, 0)
	r.atLeast("cpuAllocatableEvictLowerPercent", s.CPUAllocatableEvictLowerPercent, 0)
	r.less("cpuAllocatableEvictLowerPercent", s.CPUAllocatableEvictLowerPercent,
		"cpuAllocatableEvictThresholdPercent", s.CPUAllocatableEvictThresholdPercent)
	oneOf(r, "cpuEvictPolicy", s.CPUEvictPolicy, slov1alpha1.EvictByRealLimitPolicy, slov1alpha1.EvictByAllocatablePolicy)

	r.between32("allocatableEvictPriorityThreshold", s.AllocatableEvictPriorityThreshold, 0, 7999)
	return r.errs
}
