package sloconfig

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// validateCPUBurst checks cpuBurstStrategy. cpuBurstPercent must be at
// least 1 here although the CRD allows 0: a zero burst is a typo for
// policy "none".
func validateCPUBurst(s *slov1alpha1.CPUBurstStrategy, r *rules) field.ErrorList {
	oneOf(r, "policy", s.Policy, slov1alpha1.CPUBurstNone, slov1alpha1.CPUBurstOnly,
		slov1alpha1.CFSQuotaBurstOnly, slov1alpha1.CPUBurstAuto)
	r.between("cpuBurstPercent", s.CPUBurstPercent, 1, 10000)
	r.atLeast("cfsQuotaBurstPercent", s.CFSQuotaBurstPercent, 100)
	r.atLeast("cfsQuotaBurstPeriodSeconds", s.CFSQuotaBurstPeriodSeconds, -1)
	r.between("sharePoolThresholdPercent", s.SharePoolThresholdPercent, 0, 100)
	return r.errs
}
