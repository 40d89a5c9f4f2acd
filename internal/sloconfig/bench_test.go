package sloconfig

import (
	"fmt"
	"maps"
	"strings"
	"testing"
)

// benchData is a ConfigMap with 20 node strategies in every section, the
// way large clusters split nodes by pool and zone.
func benchData() map[string]string {
	entries := func(fields string) string {
		var b strings.Builder
		for i := range 20 {
			if i > 0 {
				b.WriteString(",")
			}
			selector := fmt.Sprintf(`{"matchLabels": {"node.example.com/pool": "pool-%d"}}`, i)
			if i%4 == 3 {
				selector = fmt.Sprintf(`{"matchLabels": {"node.example.com/pool": "pool-%d"},
				  "matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
				    "values": ["zone-a", "zone-b"]}]}`, i)
			}
			fmt.Fprintf(&b, `{"name": "pool-%d", "nodeSelector": %s, %s}`, i, selector, fmt.Sprintf(fields, i))
		}
		return b.String()
	}
	return map[string]string{
		string(KeyResourceThreshold): `{"clusterStrategy": {"enable": true}, "nodeStrategies": [` +
			entries(`"cpuSuppressThresholdPercent": %d`) + `]}`,
		string(KeyResourceQOS): `{"clusterStrategy": {"lsClass": {"cpuQOS": {"enable": true}}}, "nodeStrategies": [` +
			entries(`"beClass": {"memoryQOS": {"enable": true, "wmarkRatio": %d}}`) + `]}`,
		string(KeyCPUBurst): `{"clusterStrategy": {"policy": "auto"}, "nodeStrategies": [` +
			entries(`"cpuBurstPercent": 1%d0`) + `]}`,
		string(KeySystem): `{"clusterStrategy": {"totalNetworkBandwidth": "10G"}, "nodeStrategies": [` +
			entries(`"minFreeKbytesFactor": 1%d`) + `]}`,
		string(KeyHostApplication): `{"applications": [{"name": "nginx", "qos": "LS"}], "nodeConfigs": [` +
			entries(`"applications": [{"name": "app-%d", "qos": "LSR"}]`) + `]}`,
	}
}

// benchPoolLabel is the label the benchmark's strategies select nodes by.
const benchPoolLabel = "node.example.com/pool"

// benchNode carries the labels a cloud node typically has; it matches the
// 16th strategy of each section, so most selectors are tried and miss.
var benchNode = Node{
	Name: "ip-10-0-3-17.ec2.internal",
	Labels: map[string]string{
		"kubernetes.io/hostname":                  "ip-10-0-3-17.ec2.internal",
		"kubernetes.io/os":                        "linux",
		"kubernetes.io/arch":                      "amd64",
		"beta.kubernetes.io/os":                   "linux",
		"beta.kubernetes.io/arch":                 "amd64",
		"node.kubernetes.io/instance-type":        "m6i.4xlarge",
		"topology.kubernetes.io/region":           "us-east-1",
		"topology.kubernetes.io/zone":             "zone-a",
		benchPoolLabel:                            "pool-15",
		"node.example.com/team":                   "search",
		"node-role.kubernetes.io/worker":          "",
		"karpenter.sh/capacity-type":              "on-demand",
		"eks.amazonaws.com/nodegroup":             "workers-2",
		"koordinator.sh/enable-colocation":        "true",
		"feature.node.kubernetes.io/cpu-model.id": "106",
	},
	Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0"},
}

func BenchmarkResolve(b *testing.B) {
	c := Load(benchData(), nil)
	if !c.Valid() {
		b.Fatalf("benchmark configuration is invalid: %v", c.Reports())
	}
	if m := c.Resolve(benchNode, nil).Matches[2]; m.Index != 15 {
		b.Fatalf("the node matched %+v, want strategy 15", m)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Resolve(benchNode, nil)
	}
}

func BenchmarkLoad(b *testing.B) {
	data := benchData()
	b.ReportAllocs()
	for b.Loop() {
		_ = Load(data, nil)
	}
}

// benchNodes returns n nodes labelled like benchNode, spread over 25
// pools (20 with strategies) and 3 zones. distinct gives every node a pool
// of its own instead, so that no two nodes are alike in the labels the
// selectors read: the worst case for grouping.
func benchNodes(n int, distinct bool) []Node {
	nodes := make([]Node, n)
	for i := range nodes {
		labels := maps.Clone(benchNode.Labels)
		name := fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", i/250, i%250)
		labels["kubernetes.io/hostname"] = name
		labels["topology.kubernetes.io/zone"] = fmt.Sprintf("zone-%c", 'a'+i%3)
		labels[benchPoolLabel] = fmt.Sprintf("pool-%d", i%25)
		if distinct {
			labels[benchPoolLabel] = fmt.Sprintf("pool-%d", i)
		}
		InternLabels(labels)
		nodes[i] = Node{Name: name, Labels: labels}
	}
	return nodes
}

// BenchmarkReach10000Nodes is one computation of the nodeslo_strategy_nodes
// metric's counts (and of the webhook's unmatched-strategy check) at 10,000
// nodes, with 20 node strategies in each of the five keys.
func BenchmarkReach10000Nodes(b *testing.B) {
	c := Load(benchData(), nil)
	if !c.Valid() {
		b.Fatalf("benchmark configuration is invalid: %v", c.Reports())
	}
	for _, tc := range []struct {
		name     string
		distinct bool
	}{{"75 label groups", false}, {"every node distinct", true}} {
		nodes := benchNodes(10_000, tc.distinct)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, n := c.Reach(labelSets(nodes)); n != len(nodes) {
					b.Fatalf("counted %d nodes", n)
				}
			}
		})
	}
}
