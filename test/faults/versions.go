package faults

import (
	"fmt"
	"strings"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Version returns the ConfigMap data of configuration version v (v >= 0):
// node strategies per pool on the fixture nodes' labels, and a CPU
// burst period of 100+v seconds in a cluster strategy no node strategy
// overrides, so that going from any version to another changes every
// node's spec.
func Version(v int) map[string]string {
	return map[string]string{
		string(sloconfig.KeyResourceThreshold): `{
  "clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 65, "memoryEvictThresholdPercent": 70},
  "nodeStrategies": [
    {"name": "colo", "nodeSelector": {"matchLabels": {"node-pool": "colo"}}, "cpuSuppressThresholdPercent": 80},
    {"name": "online", "nodeSelector": {"matchLabels": {"node-pool": "online"}}, "enable": false}
  ]
}`,
		string(sloconfig.KeyCPUBurst): fmt.Sprintf(
			`{"clusterStrategy": {"policy": "auto", "cfsQuotaBurstPeriodSeconds": %d}}`, 100+v),
		string(sloconfig.KeySystem): `{
  "clusterStrategy": {"totalNetworkBandwidth": "10G"},
  "nodeStrategies": [
    {"name": "bulk", "nodeSelector": {"matchExpressions": [{"key": "node-pool", "operator": "In", "values": ["bulk"]}]},
     "watermarkScaleFactor": 300}
  ]
}`,
	}
}

// Specs is the spec each node must carry, by node name.
type Specs map[string]*slov1alpha1.NodeSLOSpec

// Expected loads data as the controller does and resolves it for every
// node of the fleet: the specs the manager must end with. It fails on a
// configuration with errors or warnings, which the fault tests do not use.
func (f *Fleet) Expected(data map[string]string) (Specs, error) {
	cfg := sloconfig.Load(data, nil)
	for _, r := range cfg.Reports() {
		if !r.Valid() || len(r.Warnings) > 0 {
			return nil, fmt.Errorf("fault test configuration: %s", strings.Join(append(r.Messages(), r.Warnings...), "; "))
		}
	}
	out := make(Specs, len(f.Nodes))
	for _, n := range f.resolverNodes() {
		res := cfg.Resolve(n, nil)
		out[n.Name] = res.Spec.DeepCopy()
	}
	return out, nil
}

// ChangesBetween counts, per node, the versions in the sequence that
// changed the node's spec from the one before (seq[0] is the starting
// point): the configuration changes that reached it.
func ChangesBetween(seq ...Specs) map[string]int {
	out := map[string]int{}
	for i := 1; i < len(seq); i++ {
		for name, spec := range seq[i] {
			if !sloconfig.SpecEqual(seq[i-1][name], spec) {
				out[name]++
			}
		}
	}
	return out
}
