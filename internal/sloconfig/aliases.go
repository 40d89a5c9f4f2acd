package sloconfig

import slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"

// Short names for the strategy types, to keep generic code readable.
type (
	thresholdStrategy = slov1alpha1.ResourceThresholdStrategy
	qosStrategy       = slov1alpha1.ResourceQOSStrategy
	burstStrategy     = slov1alpha1.CPUBurstStrategy
	systemStrategy    = slov1alpha1.SystemStrategy
)
