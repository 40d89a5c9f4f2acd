package sloconfig

import (
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// The built-in defaults are what a NodeSLO says when the ConfigMap is
// silent (docs/behaviour.md#defaults). Each call returns a fresh value.

// DefaultResourceThresholdStrategy is the default of resource-threshold-config.
func DefaultResourceThresholdStrategy() *slov1alpha1.ResourceThresholdStrategy {
	return &slov1alpha1.ResourceThresholdStrategy{
		Enable:                      new(false),
		CPUSuppressThresholdPercent: new(int64(65)),
		CPUSuppressPolicy:           slov1alpha1.CPUSetPolicy,
		MemoryEvictThresholdPercent: new(int64(70)),
		CPUEvictPolicy:              slov1alpha1.EvictByRealLimitPolicy,
	}
}

// DefaultResourceQOSStrategy is the default of resource-qos-config: empty,
// so that agents apply their own recommended values.
func DefaultResourceQOSStrategy() *slov1alpha1.ResourceQOSStrategy {
	return &slov1alpha1.ResourceQOSStrategy{}
}

// DefaultCPUBurstStrategy is the default of cpu-burst-config.
func DefaultCPUBurstStrategy() *slov1alpha1.CPUBurstStrategy {
	return &slov1alpha1.CPUBurstStrategy{
		CPUBurstConfig: slov1alpha1.CPUBurstConfig{
			Policy:                     slov1alpha1.CPUBurstNone,
			CPUBurstPercent:            new(int64(1000)),
			CFSQuotaBurstPercent:       new(int64(300)),
			CFSQuotaBurstPeriodSeconds: new(int64(-1)),
		},
		SharePoolThresholdPercent: new(int64(50)),
	}
}

// DefaultSystemStrategy is the default of system-config.
func DefaultSystemStrategy() *slov1alpha1.SystemStrategy {
	return &slov1alpha1.SystemStrategy{TotalNetworkBandwidth: resource.MustParse("0")}
}

// emptyExtensions is written into every spec: agents expect {"Object":{}}.
// Shared and read-only, like every other part of a resolved spec.
var emptyExtensions = &slov1alpha1.ExtensionsMap{Object: map[string]any{}}

// Schema defaults of the NodeSLO CRD (docs/nodeslo-api.md#resourceqos):
// the apiserver fills in a networkQOS object's bandwidths left out, as
// Koordinator's CRD does since its v1.4.0. The engine fills them in too, so
// that a resolved spec is what the apiserver stores: otherwise every stored
// spec would differ from the resolved one, and a NodeSLO read whole would
// be written again and again.
var (
	defaultBandwidthRequest = intstr.FromInt32(0)
	defaultBandwidthLimit   = intstr.FromInt32(100)
)

// fillNetworkQOSDefaults fills in the schema defaults of every class's
// networkQOS that is present.
func fillNetworkQOSDefaults(q *slov1alpha1.ResourceQOSStrategy) {
	for _, class := range []*slov1alpha1.ResourceQOS{q.LSRClass, q.LSClass, q.BEClass, q.SystemClass, q.CgroupRoot} {
		if class == nil || class.NetworkQOS == nil {
			continue
		}
		n := &class.NetworkQOS.NetworkQOS
		for _, f := range []struct {
			value **intstr.IntOrString
			def   intstr.IntOrString
		}{
			{&n.IngressRequest, defaultBandwidthRequest}, {&n.IngressLimit, defaultBandwidthLimit},
			{&n.EgressRequest, defaultBandwidthRequest}, {&n.EgressLimit, defaultBandwidthLimit},
		} {
			if *f.value == nil {
				def := f.def
				*f.value = &def
			}
		}
	}
}
