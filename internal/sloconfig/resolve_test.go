package sloconfig

import (
	"fmt"
	"strings"
	"testing"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// One case per row of the rules table in docs/behaviour.md#merge-rules: a
// ConfigMap key, a node, and the JSON of the section the node gets.
func TestResolvingASection(t *testing.T) {
	tests := []struct {
		name    string
		key     Key
		doc     string
		labels  map[string]string
		section string // JSON name in the spec
		want    string
	}{{
		name: "cluster strategy: a field set replaces the default, the others keep it",
		key:  KeyResourceThreshold, section: thresholdSection,
		doc: `{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 50}}`,
		want: `{"enable":true,"cpuSuppressThresholdPercent":50,"cpuSuppressPolicy":"cpuset",
		       "memoryEvictThresholdPercent":70,"cpuEvictPolicy":"evictByRealLimit"}`,
	}, {
		name: "cluster strategy: a false or zero value is a value",
		key:  KeyCPUBurst, section: burstSection,
		doc: `{"clusterStrategy": {"sharePoolThresholdPercent": 0, "cfsQuotaBurstPeriodSeconds": 0}}`,
		want: `{"policy":"none","cpuBurstPercent":1000,"cfsQuotaBurstPercent":300,
		       "cfsQuotaBurstPeriodSeconds":0,"sharePoolThresholdPercent":0}`,
	}, {
		name: "cluster strategy: null and empty strings are not values (as in Koordinator's overlay)",
		key:  KeyResourceThreshold, section: thresholdSection,
		doc: `{"clusterStrategy": {"enable": null, "cpuSuppressPolicy": ""}}`,
		want: `{"enable":false,"cpuSuppressThresholdPercent":65,"cpuSuppressPolicy":"cpuset",
		       "memoryEvictThresholdPercent":70,"cpuEvictPolicy":"evictByRealLimit"}`,
	}, {
		name: "cluster strategy over an empty default: resource QoS holds exactly what is written",
		key:  KeyResourceQOS, section: qosSection,
		doc:  `{"clusterStrategy": {"lsClass": {"cpuQOS": {"enable": true, "groupIdentity": 2}}}}`,
		want: `{"lsClass":{"cpuQOS":{"enable":true,"groupIdentity":2}}}`,
	}, {
		name: "a repeated field: later values override, objects merge (as encoding/json decodes them)",
		key:  KeyResourceQOS, section: qosSection,
		doc:  `{"clusterStrategy": {"lsClass": {"cpuQOS": {"enable": true}}, "lsClass": {"memoryQOS": {"enable": false}}}}`,
		want: `{"lsClass":{"cpuQOS":{"enable":true},"memoryQOS":{"enable":false}}}`,
	}, {
		name: "node strategy: nested objects overlay recursively",
		key:  KeyResourceQOS, section: qosSection, labels: map[string]string{poolLabel: "a"},
		doc: `{"clusterStrategy": {"lsClass": {"cpuQOS": {"enable": true, "groupIdentity": 2},
		         "memoryQOS": {"enable": true}}},
		       "nodeStrategies": [{"nodeSelector": {"matchLabels": {"pool": "a"}},
		         "lsClass": {"cpuQOS": {"groupIdentity": 1}}}]}`,
		want: `{"lsClass":{"cpuQOS":{"enable":true,"groupIdentity":1},"memoryQOS":{"enable":true}}}`,
	}, {
		name: "node strategy: maps merge key by key",
		key:  KeySystem, section: systemSection, labels: map[string]string{poolLabel: "a"},
		doc: `{"clusterStrategy": {"schedFeatures": {"A": true, "B": true}},
		       "nodeStrategies": [{"nodeSelector": {"matchLabels": {"pool": "a"}},
		         "schedFeatures": {"B": false, "C": true}}]}`,
		want: `{"schedFeatures":{"A":true,"B":false,"C":true},"totalNetworkBandwidth":"0"}`,
	}, {
		name: "node strategy: lists are replaced whole",
		key:  KeyResourceQOS, section: qosSection, labels: map[string]string{poolLabel: "a"},
		doc: `{"clusterStrategy": {"cgroupRoot": {"blkioQOS": {"blocks": [
		         {"name": "sda", "type": "device", "ioCfg": {"readIOPS": 1}}, {"name": "sdb", "type": "device"}]}}},
		       "nodeStrategies": [{"nodeSelector": {"matchLabels": {"pool": "a"}},
		         "cgroupRoot": {"blkioQOS": {"blocks": [{"name": "vg", "type": "volumegroup"}]}}}]}`,
		want: `{"cgroupRoot":{"blkioQOS":{"blocks":[{"name":"vg","type":"volumegroup","ioCfg":{}}]}}}`,
	}, {
		name: "node strategy: fields it leaves out keep the merged cluster strategy's",
		key:  KeySystem, section: systemSection, labels: map[string]string{poolLabel: "a"},
		doc: `{"clusterStrategy": {"minFreeKbytesFactor": 100, "totalNetworkBandwidth": "10G"},
		       "nodeStrategies": [{"nodeSelector": {"matchLabels": {"pool": "a"}}, "watermarkScaleFactor": 150}]}`,
		want: `{"minFreeKbytesFactor":100,"watermarkScaleFactor":150,"totalNetworkBandwidth":"10G"}`,
	}, {
		name: "the first matching node strategy wins",
		key:  KeyCPUBurst, section: burstSection, labels: map[string]string{poolLabel: "a", "rack": "r1"},
		doc: `{"nodeStrategies": [
		         {"name": "rack", "nodeSelector": {"matchLabels": {"rack": "r1"}}, "policy": "auto"},
		         {"name": "pool", "nodeSelector": {"matchLabels": {"pool": "a"}}, "policy": "cpuBurstOnly"}]}`,
		want: `{"policy":"auto","cpuBurstPercent":1000,"cfsQuotaBurstPercent":300,
		       "cfsQuotaBurstPeriodSeconds":-1,"sharePoolThresholdPercent":50}`,
	}, {
		name: "no matching node strategy: the cluster strategy",
		key:  KeyCPUBurst, section: burstSection, labels: map[string]string{poolLabel: "b"},
		doc: `{"clusterStrategy": {"policy": "cfsQuotaBurstOnly"},
		       "nodeStrategies": [{"nodeSelector": {"matchLabels": {"pool": "a"}}, "policy": "auto"}]}`,
		want: `{"policy":"cfsQuotaBurstOnly","cpuBurstPercent":1000,"cfsQuotaBurstPercent":300,
		       "cfsQuotaBurstPeriodSeconds":-1,"sharePoolThresholdPercent":50}`,
	}, {
		name: "a selector {} matches every node",
		key:  KeyCPUBurst, section: burstSection,
		doc: `{"nodeStrategies": [{"nodeSelector": {}, "policy": "auto"}]}`,
		want: `{"policy":"auto","cpuBurstPercent":1000,"cfsQuotaBurstPercent":300,
		       "cfsQuotaBurstPeriodSeconds":-1,"sharePoolThresholdPercent":50}`,
	}, {
		name: "match expressions select too",
		key:  KeyCPUBurst, section: burstSection, labels: map[string]string{poolLabel: "b"},
		doc: `{"nodeStrategies": [
		         {"nodeSelector": {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a", "b"]}]},
		          "cpuBurstPercent": 200}]}`,
		want: `{"policy":"none","cpuBurstPercent":200,"cfsQuotaBurstPercent":300,
		       "cfsQuotaBurstPeriodSeconds":-1,"sharePoolThresholdPercent":50}`,
	}, {
		name: "host applications: the first matching node config's, not merged",
		key:  KeyHostApplication, section: hostAppsSection, labels: map[string]string{poolLabel: "a"},
		doc: `{"applications": [{"name": "top", "qos": "LS"}],
		       "nodeConfigs": [{"name": "a", "nodeSelector": {"matchLabels": {"pool": "a"}},
		         "applications": [{"name": "nginx", "qos": "LSR",
		           "priority": "koord-prod", "cgroupPath": {"base": "CgroupRoot", "relativePath": "nginx/"}}]},
		         {"name": "all", "nodeSelector": {}, "applications": [{"name": "other"}]}]}`,
		want: `[{"name":"nginx","priority":"koord-prod","qos":"LSR",
		        "cgroupPath":{"base":"CgroupRoot","relativePath":"nginx/"}}]`,
	}, {
		name: "host applications: the top-level list when no node config matches",
		key:  KeyHostApplication, section: hostAppsSection, labels: map[string]string{poolLabel: "b"},
		doc: `{"applications": [{"name": "top", "qos": "LS"}],
		       "nodeConfigs": [{"nodeSelector": {"matchLabels": {"pool": "a"}}, "applications": [{"name": "nginx"}]}]}`,
		want: `[{"name":"top","qos":"LS"}]`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Load(map[string]string{string(tt.key): tt.doc}, nil)
			if r := report(c, tt.key); !r.Valid() || r.State != StateConfigured {
				t.Fatalf("state %s, errors:\n%s", r.State, errorsText(r))
			}
			res := c.Resolve(Node{Name: "n", Labels: tt.labels}, nil)
			if got := compact(t, sectionJSON(t, res.Spec, tt.section)); got != compact(t, tt.want) {
				t.Errorf("%s\n got %s\nwant %s", tt.section, got, compact(t, tt.want))
			}
		})
	}
}

func TestMatchesNameTheStrategyThatApplied(t *testing.T) {
	c := Load(map[string]string{
		string(KeyCPUBurst): `{"nodeStrategies": [{"name": "x", "nodeSelector": {"matchLabels": {"a": "1"}}},
		                                         {"name": "y", "nodeSelector": {"matchLabels": {"b": "1"}}}]}`,
	}, nil)
	res := c.Resolve(Node{Name: "n", Labels: map[string]string{"b": "1"}}, nil)
	want := []SectionMatch{
		{Key: KeyResourceThreshold, Index: -1, State: StateDefault},
		{Key: KeyResourceQOS, Index: -1, State: StateDefault},
		{Key: KeyCPUBurst, Strategy: "y", Index: 1, State: StateConfigured},
		{Key: KeySystem, Index: -1, State: StateDefault},
		{Key: KeyHostApplication, Index: -1, State: StateDefault},
	}
	if len(res.Matches) != len(want) {
		t.Fatalf("matches %+v, want %+v", res.Matches, want)
	}
	for i := range want {
		if res.Matches[i] != want[i] {
			t.Errorf("match %d: %+v, want %+v", i, res.Matches[i], want[i])
		}
	}
}

func TestANodeMatchingSeveralStrategiesIsWarnedAbout(t *testing.T) {
	c := Load(map[string]string{
		string(KeySystem): `{"nodeStrategies": [
		  {"name": "gpu", "nodeSelector": {"matchLabels": {"accelerator": "nvidia"}}, "minFreeKbytesFactor": 10},
		  {"name": "big", "nodeSelector": {"matchLabels": {"size": "big"}}, "minFreeKbytesFactor": 20}]}`,
	}, nil)
	res := c.Resolve(Node{Name: "n", Labels: map[string]string{"accelerator": "nvidia", "size": "big"}}, nil)
	if got := *res.Spec.SystemStrategy.MinFreeKbytesFactor; got != 10 {
		t.Errorf("minFreeKbytesFactor %d, want the first strategy's 10", got)
	}
	if len(res.Warnings) != 1 || res.Warnings[0].Reason != ReasonMultipleNodeStrategies {
		t.Fatalf("warnings %+v, want one %s", res.Warnings, ReasonMultipleNodeStrategies)
	}
	for _, part := range []string{
		string(KeySystem),
		`the first, "gpu" (index 0), applies`,
		`"big" (index 1) also matches and is ignored`,
		`"big" (index 1)`,
	} {
		if !strings.Contains(res.Warnings[0].Message, part) {
			t.Errorf("message %q lacks %q", res.Warnings[0].Message, part)
		}
	}
	if res := c.Resolve(Node{Name: "m", Labels: map[string]string{"accelerator": "nvidia"}}, nil); len(res.Warnings) != 0 {
		t.Errorf("a node matching one strategy got warnings %+v", res.Warnings)
	}
}

// The warning is resolved for every node and recorded per node, so it names
// the first few of the strategies the first match shadows, each name
// clipped, and counts the rest: its size does not follow the configuration.
func TestAWarningAboutManyMatchingStrategiesNamesAFew(t *testing.T) {
	strategies := make([]string, 500)
	for i := range strategies {
		strategies[i] = fmt.Sprintf(`{"name": "s%03d-%s", "nodeSelector": {"matchLabels": {"pool": "all"}}}`,
			i, strings.Repeat("x", 200))
	}
	c := Load(map[string]string{string(KeyCPUBurst): `{"nodeStrategies": [` + strings.Join(strategies, ", ") + `]}`}, nil)
	res := c.Resolve(Node{Name: "n", Labels: map[string]string{"pool": "all"}}, nil)
	if len(res.Warnings) != 1 {
		t.Fatalf("warnings %+v, want one", res.Warnings)
	}
	clipped := func(i int) string {
		return fmt.Sprintf(`"s%03d-%s…(205 bytes)" (index %d)`, i, strings.Repeat("x", 59), i)
	}
	want := "cpu-burst-config: the node matches 500 entries of nodeStrategies: the first, " + clipped(0) +
		", applies; " + clipped(1) + ", " + clipped(2) + ", " + clipped(3) + " and 496 more also match and are ignored"
	if got := res.Warnings[0].Message; got != want {
		t.Errorf("message:\n%s\nwant:\n%s", got, want)
	}
}

func TestHoldsAnyKey(t *testing.T) {
	for _, tc := range []struct {
		data map[string]string
		want bool
	}{
		{data: nil, want: false},
		{data: map[string]string{}, want: false},
		{data: map[string]string{string(KeyRollout): `{}`, "cpu-normalization-config": `{}`}, want: false},
		{data: map[string]string{string(KeyHostApplication): ``}, want: true},
		{data: map[string]string{string(KeyResourceThreshold): `{}`, "cpu-normalization-config": `{}`}, want: true},
	} {
		if got := HoldsAnyKey(tc.data); got != tc.want {
			t.Errorf("HoldsAnyKey(%v) = %v, want %v", tc.data, got, tc.want)
		}
	}
}

func TestBandwidthAnnotation(t *testing.T) {
	const configured = "10G"
	c := Load(map[string]string{
		string(KeySystem): `{"clusterStrategy": {"totalNetworkBandwidth": "` + configured + `", "minFreeKbytesFactor": 5}}`,
	}, nil)
	tests := []struct {
		name       string
		annotation string
		want       string
		warning    bool
	}{
		{"valid quantity replaces the strategy's", "40G", "40G", false},
		{"quantities are written canonically", "1000M", "1G", false},
		{"equal value", "10000M", configured, false},
		{"not a quantity: ignored with a warning", "fast", configured, true},
		{"negative: ignored with a warning", "-1G", configured, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := c.Resolve(Node{Name: "n", Annotations: map[string]string{NetworkBandwidthAnnotation: tt.annotation}}, nil)
			sys := res.Spec.SystemStrategy
			if got := sys.TotalNetworkBandwidth.String(); got != tt.want {
				t.Errorf("totalNetworkBandwidth %s, want %s", got, tt.want)
			}
			if *sys.MinFreeKbytesFactor != 5 {
				t.Errorf("other fields lost: %+v", sys)
			}
			if got := len(res.Warnings) == 1 && res.Warnings[0].Reason == ReasonInvalidNetworkBandwidth; got != tt.warning {
				t.Errorf("warnings %+v, want an %s warning: %v", res.Warnings, ReasonInvalidNetworkBandwidth, tt.warning)
			}
			if tt.warning && !strings.Contains(res.Warnings[0].Message, NetworkBandwidthAnnotation) ||
				tt.warning && !strings.Contains(res.Warnings[0].Message, tt.annotation) {
				t.Errorf("message %q must name the annotation and its value", res.Warnings[0].Message)
			}
		})
	}
	// The shared strategy must not have been changed by any node.
	if got := c.Resolve(Node{Name: "plain"}, nil).Spec.SystemStrategy.TotalNetworkBandwidth.String(); got != configured {
		t.Errorf("the shared strategy was modified: %s", got)
	}
}

func TestResolvedSpecSharesTheConfigsValues(t *testing.T) {
	c := Load(nil, nil)
	a := c.Resolve(Node{Name: "a"}, nil).Spec
	b := c.Resolve(Node{Name: "b"}, nil).Spec
	if a.CPUBurstStrategy != b.CPUBurstStrategy || a.Extensions != b.Extensions {
		t.Error("resolving copied shared values; the contract says they are shared read-only")
	}
	if a.HostApplications != nil {
		t.Errorf("hostApplications %v, want nil (omitted)", a.HostApplications)
	}
	if a.ResourceQOSStrategy == nil || *a.ResourceQOSStrategy != (slov1alpha1.ResourceQOSStrategy{}) {
		t.Errorf("resourceQOSStrategy %+v, want an empty object", a.ResourceQOSStrategy)
	}
}
