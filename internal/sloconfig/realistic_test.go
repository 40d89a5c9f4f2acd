package sloconfig

import (
	"strings"
	"testing"
)

// realisticData is a ConfigMap in the style of Koordinator's Helm chart,
// with node strategies as operators write them.
var realisticData = map[string]string{
	"colocation-config": `{"enable": true, "cpuReclaimThresholdPercent": 60}`,
	string(KeyResourceThreshold): `{
  "clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 60, "cpuSuppressPolicy": "cfsQuota",
    "memoryEvictThresholdPercent": 75, "memoryEvictLowerPercent": 70},
  "nodeStrategies": [
    {"name": "batch-pool", "nodeSelector": {"matchLabels": {"pool": "batch"}}, "cpuSuppressThresholdPercent": 80,
     "cpuEvictBESatisfactionUpperPercent": 80, "cpuEvictBESatisfactionLowerPercent": 60,
     "cpuEvictTimeWindowSeconds": 300}
  ]
}`,
	string(KeyResourceQOS): `{
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
     "lsClass": {"memoryQOS": {"enable": false}}, "beClass": {"cpuQOS": {"enable": false}}}
  ]
}`,
	string(KeyCPUBurst): `{"clusterStrategy": {"policy": "auto", "cfsQuotaBurstPeriodSeconds": 60}}`,
	string(KeySystem): `{
  "clusterStrategy": {"minFreeKbytesFactor": 100, "watermarkScaleFactor": 150, "memcgReapBackGround": 0,
    "totalNetworkBandwidth": "10000M"},
  "nodeStrategies": [{"name": "big", "nodeSelector": {"matchLabels": {"size": "big"}}, "watermarkScaleFactor": 300}]
}`,
	string(KeyHostApplication): `{
  "applications": [{"name": "nginx", "priority": "koord-prod", "qos": "LS",
    "cgroupPath": {"base": "CgroupRoot", "parentDir": "host-latency-sensitive/", "relativePath": "nginx/"}}],
  "nodeConfigs": [{"name": "edge", "nodeSelector": {"matchLabels": {"pool": "edge"}}, "applications": []}]
}`,
}

func TestRealisticConfigMap(t *testing.T) {
	c := Load(realisticData, nil)
	for _, r := range c.Reports() {
		if r.State != StateConfigured || len(r.Warnings) > 0 {
			t.Fatalf("%s: state %s, errors %v, warnings %v", r.Key, r.State, r.Messages(), r.Warnings)
		}
	}
	// The sections the nodes share, as the controller writes them: the
	// bandwidths networkQOS leaves out filled in as the CRD's schema does.
	const (
		clusterThreshold = `"resourceUsedThresholdWithBE": {"enable": true, "cpuSuppressThresholdPercent": 60,
		  "cpuSuppressPolicy": "cfsQuota", "memoryEvictThresholdPercent": 75, "memoryEvictLowerPercent": 70,
		  "cpuEvictPolicy": "evictByRealLimit"}`
		clusterQOS = `"resourceQOSStrategy": {"policies": {"cpuPolicy": "groupIdentity"},
		  "lsrClass": {"cpuQOS": {"enable": true, "groupIdentity": 2},
		    "resctrlQOS": {"enable": true, "catRangeEndPercent": 100}},
		  "lsClass": {"cpuQOS": {"enable": true, "groupIdentity": 2}, "memoryQOS": {"enable": true, "wmarkRatio": 95}},
		  "beClass": {"cpuQOS": {"enable": true, "groupIdentity": -1}, "memoryQOS": {"enable": true, "wmarkMinAdj": 50},
		    "networkQOS": {"enable": true, "ingressLimit": "500M", "egressLimit": 50,
		      "ingressRequest": 0, "egressRequest": 0}}}`
		burst = `"cpuBurstStrategy": {"policy": "auto", "cpuBurstPercent": 1000, "cfsQuotaBurstPercent": 300,
		  "cfsQuotaBurstPeriodSeconds": 60, "sharePoolThresholdPercent": 50}`
		clusterSystem = `"systemStrategy": {"minFreeKbytesFactor": 100, "watermarkScaleFactor": 150, "memcgReapBackGround": 0,
		  "totalNetworkBandwidth": "10G"}`
		extensions   = `"extensions": {"Object": {}}`
		wantHostApps = `"hostApplications": [{"name": "nginx", "priority": "koord-prod", "qos": "LS",
		  "cgroupPath": {"base": "CgroupRoot", "parentDir": "host-latency-sensitive/", "relativePath": "nginx/"}}]`
	)
	tests := []struct {
		name     string
		node     Node
		sections []string
	}{{
		name:     "a node on the anolis kernel, matching no node strategy",
		node:     Node{Name: "plain", Labels: map[string]string{"kernel": "anolis"}},
		sections: []string{clusterThreshold, clusterQOS, burst, clusterSystem, extensions, wantHostApps},
	}, {
		name: "a big edge node without a kernel label (so old-kernel matches), with its own bandwidth",
		node: Node{Name: "busy", Labels: map[string]string{poolLabel: "edge", "size": "big"},
			Annotations: map[string]string{NetworkBandwidthAnnotation: "25G"}},
		sections: []string{clusterThreshold, `"resourceQOSStrategy": {"policies": {"cpuPolicy": "groupIdentity"},
		  "lsrClass": {"cpuQOS": {"enable": true, "groupIdentity": 2},
		    "resctrlQOS": {"enable": true, "catRangeEndPercent": 100}},
		  "lsClass": {"cpuQOS": {"enable": true, "groupIdentity": 2}, "memoryQOS": {"enable": false, "wmarkRatio": 95}},
		  "beClass": {"cpuQOS": {"enable": false, "groupIdentity": -1},
		    "memoryQOS": {"enable": true, "wmarkMinAdj": 50},
		    "networkQOS": {"enable": true, "ingressLimit": "500M", "egressLimit": 50,
		      "ingressRequest": 0, "egressRequest": 0}}}`,
			burst, `"systemStrategy": {"minFreeKbytesFactor": 100, "watermarkScaleFactor": 300, "memcgReapBackGround": 0,
		  "totalNetworkBandwidth": "25G"}`, extensions},
	}, {
		name: "a batch node",
		node: Node{Name: "batch-1", Labels: map[string]string{poolLabel: "batch", "kernel": "anolis"}},
		sections: []string{`"resourceUsedThresholdWithBE": {"enable": true, "cpuSuppressThresholdPercent": 80,
		  "cpuSuppressPolicy": "cfsQuota", "memoryEvictThresholdPercent": 75, "memoryEvictLowerPercent": 70,
		  "cpuEvictBESatisfactionUpperPercent": 80, "cpuEvictBESatisfactionLowerPercent": 60,
		  "cpuEvictTimeWindowSeconds": 300,
		  "cpuEvictPolicy": "evictByRealLimit"}`, clusterQOS, burst, clusterSystem, extensions, wantHostApps},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := c.Resolve(tt.node, nil)
			if got, want := compact(t, specJSON(t, res.Spec)), compact(t, "{"+strings.Join(tt.sections, ",")+"}"); got != want {
				t.Errorf("spec\n got %s\nwant %s", got, want)
			}
		})
	}
}
