package main

import (
	"fmt"
	"maps"
	"strings"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The three ConfigMaps the phases go through. Each is valid and without
// warnings: the benchmark measures the work, not the error paths.
var (
	// configCold is in force at start-up, in the style of Koordinator's Helm
	// chart, with a node strategy per key that has them.
	configCold = map[string]string{
		string(sloconfig.KeyResourceThreshold): thresholdConfig(80),
		string(sloconfig.KeyResourceQOS): `{
  "clusterStrategy": {
    "policies": {"cpuPolicy": "groupIdentity"},
    "lsrClass": {"cpuQOS": {"enable": true, "groupIdentity": 2},
      "resctrlQOS": {"enable": true, "catRangeEndPercent": 100}},
    "lsClass": {"cpuQOS": {"enable": true, "groupIdentity": 2}, "memoryQOS": {"enable": true, "wmarkRatio": 95}},
    "beClass": {"cpuQOS": {"enable": true, "groupIdentity": -1}, "memoryQOS": {"enable": true, "wmarkMinAdj": 50},
      "networkQOS": {"enable": true, "ingressLimit": "500M", "egressLimit": 50}}
  },
  "nodeStrategies": [
    {"name": "old-kernel",
     "nodeSelector": {"matchExpressions": [{"key": "kernel", "operator": "NotIn", "values": ["anolis"]}]},
     "lsClass": {"memoryQOS": {"enable": false}}}
  ]
}`,
		string(sloconfig.KeyCPUBurst): burstConfig(60),
		string(sloconfig.KeySystem): `{
  "clusterStrategy": {"minFreeKbytesFactor": 100, "watermarkScaleFactor": 150, "memcgReapBackGround": 0,
    "totalNetworkBandwidth": "10000M"},
  "nodeStrategies": [{"name": "big", "nodeSelector": {"matchLabels": {"` + sizeLabel + `": "big"}},
    "watermarkScaleFactor": 300}]
}`,
		string(sloconfig.KeyHostApplication): `{
  "applications": [{"name": "nginx", "priority": "koord-prod", "qos": "LS",
    "cgroupPath": {"base": "CgroupRoot", "parentDir": "host-latency-sensitive/", "relativePath": "nginx/"}}]
}`,
	}
	// configChangeAll changes a cluster strategy no node strategy overrides:
	// every node's spec changes.
	configChangeAll = with(configCold, sloconfig.KeyCPUBurst, burstConfig(90))
	// configChange10pct then changes the node strategy of the batch pool,
	// which every 10th node is in.
	configChange10pct = with(configChangeAll, sloconfig.KeyResourceThreshold, thresholdConfig(85))
)

func thresholdConfig(batchSuppress int) string {
	return `{
  "clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 60, "cpuSuppressPolicy": "cfsQuota",
    "memoryEvictThresholdPercent": 75, "memoryEvictLowerPercent": 70},
  "nodeStrategies": [
    {"name": "batch-pool", "nodeSelector": {"matchLabels": {"` + poolLabel + `": "` + batchPool + `"}},
     "cpuSuppressThresholdPercent": ` + fmt.Sprint(batchSuppress) + `,
     "cpuEvictBESatisfactionUpperPercent": 80, "cpuEvictBESatisfactionLowerPercent": 60,
     "cpuEvictTimeWindowSeconds": 300}
  ]
}`
}

func burstConfig(periodSeconds int) string {
	return fmt.Sprintf(`{"clusterStrategy": {"policy": "auto", "cfsQuotaBurstPeriodSeconds": %d}}`, periodSeconds)
}

func with(data map[string]string, key sloconfig.Key, value string) map[string]string {
	out := maps.Clone(data)
	out[string(key)] = value
	return out
}

// specSet is the spec every node must carry under one configuration.
type specSet map[string]*slov1alpha1.NodeSLOSpec

// expectedSpecs loads data over previous exactly as the controller does and
// resolves it for nodes 0..n-1: the very specs the controller must write.
func expectedSpecs(data map[string]string, previous *sloconfig.Config, n int) (*sloconfig.Config, specSet, error) {
	cfg := sloconfig.Load(data, previous)
	for _, r := range cfg.Reports() {
		if !r.Valid() || len(r.Warnings) > 0 {
			return nil, nil, fmt.Errorf("bench configuration: %s", strings.Join(append(r.Messages(), r.Warnings...), "; "))
		}
	}
	specs := make(specSet, n)
	for i := range n {
		res := cfg.Resolve(resolverNode(i), nil)
		specs[nodeName(i)] = res.Spec.DeepCopy()
	}
	return cfg, specs, nil
}

// changedNodes counts the nodes whose spec differs between two sets.
func changedNodes(before, after specSet) int {
	changed := 0
	for name, spec := range after {
		if !sloconfig.SpecEqual(before[name], spec) {
			changed++
		}
	}
	return changed
}
