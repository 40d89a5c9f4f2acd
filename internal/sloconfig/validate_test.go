package sloconfig

import (
	"fmt"
	"strings"
	"testing"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
)

// Every bound, enum and cross-field rule of nodeslo-api.md: the snippet is
// a clusterStrategy (or a host application) with %s standing for the
// value; ok must be accepted, bad rejected with an error at path.
func TestEveryRuleAcceptsAValidAndRejectsAnInvalidValue(t *testing.T) {
	const (
		rt  = KeyResourceThreshold
		qos = KeyResourceQOS
		cb  = KeyCPUBurst
		sys = KeySystem
		ha  = KeyHostApplication
	)
	tests := []struct {
		key     Key
		snippet string
		ok, bad string
		path    string
	}{
		{rt, `{"cpuSuppressThresholdPercent": %s}`, "100", "101", "cpuSuppressThresholdPercent"},
		{rt, `{"cpuSuppressThresholdPercent": %s}`, "0", "-1", "cpuSuppressThresholdPercent"},
		{rt, `{"cpuSuppressMinPercent": %s}`, "0", "101", "cpuSuppressMinPercent"},
		{rt, `{"cpuSuppressPolicy": %s}`, `"cfsQuota"`, `"quota"`, "cpuSuppressPolicy"},
		{rt, `{"memoryEvictThresholdPercent": %s}`, "100", "101", "memoryEvictThresholdPercent"},
		{rt, `{"memoryEvictLowerPercent": %s}`, "69", "-1", "memoryEvictLowerPercent"},
		{rt, `{"memoryEvictThresholdPercent": 80, "memoryEvictLowerPercent": %s}`, "79", "80", "memoryEvictLowerPercent"},
		{rt, `{"memoryAllocatableEvictThresholdPercent": %s}`, "0", "-1", "memoryAllocatableEvictThresholdPercent"},
		{rt, `{"memoryAllocatableEvictLowerPercent": %s}`, "0", "-1", "memoryAllocatableEvictLowerPercent"},
		{rt, `{"memoryAllocatableEvictThresholdPercent": 90, "memoryAllocatableEvictLowerPercent": %s}`, "89", "90",
			"memoryAllocatableEvictLowerPercent"},
		{rt, `{"cpuEvictBESatisfactionUpperPercent": %s}`, "100", "101", "cpuEvictBESatisfactionUpperPercent"},
		{rt, `{"cpuEvictBESatisfactionLowerPercent": %s}`, "0", "-1", "cpuEvictBESatisfactionLowerPercent"},
		{rt, `{"cpuEvictBESatisfactionUpperPercent": 60, "cpuEvictBESatisfactionLowerPercent": %s}`, "59", "61",
			"cpuEvictBESatisfactionLowerPercent"},
		{rt, `{"cpuEvictBEUsageThresholdPercent": %s}`, "100", "101", "cpuEvictBEUsageThresholdPercent"},
		{rt, `{"cpuEvictTimeWindowSeconds": %s}`, "1", "0", "cpuEvictTimeWindowSeconds"},
		{rt, `{"cpuEvictThresholdPercent": %s}`, "100", "101", "cpuEvictThresholdPercent"},
		{rt, `{"cpuEvictLowerPercent": %s}`, "0", "-1", "cpuEvictLowerPercent"},
		{rt, `{"cpuEvictThresholdPercent": 50, "cpuEvictLowerPercent": %s}`, "49", "50", "cpuEvictLowerPercent"},
		{rt, `{"cpuAllocatableEvictThresholdPercent": %s}`, "0", "-1", "cpuAllocatableEvictThresholdPercent"},
		{rt, `{"cpuAllocatableEvictLowerPercent": %s}`, "0", "-1", "cpuAllocatableEvictLowerPercent"},
		{rt, `{"cpuAllocatableEvictThresholdPercent": 70, "cpuAllocatableEvictLowerPercent": %s}`, "69", "71",
			"cpuAllocatableEvictLowerPercent"},
		{rt, `{"cpuEvictPolicy": %s}`, `"evictByAllocatable"`, `"evictByLimit"`, "cpuEvictPolicy"},
		{rt, `{"allocatableEvictPriorityThreshold": %s}`, "7999", "8000", "allocatableEvictPriorityThreshold"},
		{rt, `{"allocatableEvictPriorityThreshold": %s}`, "0", "-1", "allocatableEvictPriorityThreshold"},

		{qos, `{"policies": {"cpuPolicy": %s}}`, `"coreSched"`, `"bvt"`, "policies.cpuPolicy"},
		{qos, `{"policies": {"netQOSPolicy": %s}}`, `"terway-qos"`, `"cni"`, "policies.netQOSPolicy"},
		{qos, `{"lsrClass": {"cpuQOS": {"groupIdentity": %s}}}`, "-1", "3", "lsrClass.cpuQOS.groupIdentity"},
		{qos, `{"lsClass": {"cpuQOS": {"schedIdle": %s}}}`, "1", "2", "lsClass.cpuQOS.schedIdle"},
		{qos, `{"beClass": {"memoryQOS": {"minLimitPercent": %s}}}`, "100", "101", "beClass.memoryQOS.minLimitPercent"},
		{qos, `{"beClass": {"memoryQOS": {"lowLimitPercent": %s}}}`, "0", "-1", "beClass.memoryQOS.lowLimitPercent"},
		{qos, `{"beClass": {"memoryQOS": {"throttlingPercent": %s}}}`, "100", "101", "beClass.memoryQOS.throttlingPercent"},
		{qos, `{"beClass": {"memoryQOS": {"wmarkRatio": %s}}}`, "95", "101", "beClass.memoryQOS.wmarkRatio"},
		{qos, `{"beClass": {"memoryQOS": {"wmarkScalePermill": %s}}}`, "1000", "0", "beClass.memoryQOS.wmarkScalePermill"},
		{qos, `{"beClass": {"memoryQOS": {"wmarkMinAdj": %s}}}`, "-25", "-26", "beClass.memoryQOS.wmarkMinAdj"},
		{qos, `{"beClass": {"memoryQOS": {"wmarkMinAdj": %s}}}`, "50", "51", "beClass.memoryQOS.wmarkMinAdj"},
		{qos, `{"beClass": {"memoryQOS": {"priorityEnable": %s}}}`, "1", "2", "beClass.memoryQOS.priorityEnable"},
		{qos, `{"beClass": {"memoryQOS": {"priority": %s}}}`, "12", "13", "beClass.memoryQOS.priority"},
		{qos, `{"beClass": {"memoryQOS": {"oomKillGroup": %s}}}`, "0", "-1", "beClass.memoryQOS.oomKillGroup"},
		{qos, `{"beClass": {"memoryQOS": {"pageCacheLimitPercent": %s}}}`, "100", "101", "beClass.memoryQOS.pageCacheLimitPercent"},
		{qos, `{"systemClass": {"resctrlQOS": {"catRangeStartPercent": %s}}}`, "0", "-1", "systemClass.resctrlQOS.catRangeStartPercent"},
		{qos, `{"systemClass": {"resctrlQOS": {"catRangeEndPercent": %s}}}`, "100", "101", "systemClass.resctrlQOS.catRangeEndPercent"},
		{qos, `{"systemClass": {"resctrlQOS": {"catRangeEndPercent": 30, "catRangeStartPercent": %s}}}`, "29", "30",
			"systemClass.resctrlQOS.catRangeStartPercent"},
		{qos, `{"systemClass": {"resctrlQOS": {"mbaPercent": %s}}}`, "100", "101", "systemClass.resctrlQOS.mbaPercent"},
		{qos, `{"cgroupRoot": {"blkioQOS": {"blocks": [{"name": "sda", "type": %s}]}}}`, `"podvolume"`, `"disk"`, "cgroupRoot.blkioQOS.blocks[0].type"},
		{qos, `{"beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device", "ioCfg": {"readIOPS": %s}}]}}}`, "0", "-1", "beClass.blkioQOS.blocks[0].ioCfg.readIOPS"},
		{qos, `{"beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device", "ioCfg": {"writeIOPS": %s}}]}}}`, "0", "-1", "blocks[0].ioCfg.writeIOPS"},
		{qos, `{"beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device", "ioCfg": {"readBPS": %s}}]}}}`, "0", "-1", "blocks[0].ioCfg.readBPS"},
		{qos, `{"beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device", "ioCfg": {"writeBPS": %s}}]}}}`, "0", "-1", "blocks[0].ioCfg.writeBPS"},
		{qos, `{"beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device", "ioCfg": {"ioWeightPercent": %s}}]}}}`, "1", "0", "blocks[0].ioCfg.ioWeightPercent"},
		{qos, `{"beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device", "ioCfg": {"ioWeightPercent": %s}}]}}}`, "100", "101", "blocks[0].ioCfg.ioWeightPercent"},
		{qos, `{"beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device", "ioCfg": {"readLatencyPercent": %s}}]}}}`, "100", "101",
			"blocks[0].ioCfg.readLatencyPercent"},
		{qos, `{"beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device", "ioCfg": {"writeLatencyPercent": %s}}]}}}`, "0", "-1",
			"blocks[0].ioCfg.writeLatencyPercent"},
		{qos, `{"beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device", "ioCfg": {"modelReadBPS": %s}}]}}}`, "1", "0", "blocks[0].ioCfg.modelReadBPS"},
		{qos, `{"beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device", "ioCfg": {"modelWriteBPS": %s}}]}}}`, "1", "0", "blocks[0].ioCfg.modelWriteBPS"},
		{qos, `{"beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device", "ioCfg": {"modelReadSeqIOPS": %s}}]}}}`, "1", "0", "blocks[0].ioCfg.modelReadSeqIOPS"},
		{qos, `{"beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device", "ioCfg": {"modelWriteSeqIOPS": %s}}]}}}`, "1", "0", "blocks[0].ioCfg.modelWriteSeqIOPS"},
		{qos, `{"beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device", "ioCfg": {"modelReadRandIOPS": %s}}]}}}`, "1", "0", "blocks[0].ioCfg.modelReadRandIOPS"},
		{qos, `{"beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device", "ioCfg": {"modelWriteRandIOPS": %s}}]}}}`, "1", "0",
			"blocks[0].ioCfg.modelWriteRandIOPS"},
		{qos, `{"lsClass": {"networkQOS": {"ingressRequest": %s}}}`, "100", "101", "lsClass.networkQOS.ingressRequest"},
		{qos, `{"lsClass": {"networkQOS": {"ingressLimit": %s}}}`, `"50M"`, `"fast"`, "lsClass.networkQOS.ingressLimit"},
		{qos, `{"lsClass": {"networkQOS": {"egressRequest": %s}}}`, "0", "-1", "lsClass.networkQOS.egressRequest"},
		{qos, `{"lsClass": {"networkQOS": {"egressLimit": %s}}}`, `"1G"`, `"-1G"`, "lsClass.networkQOS.egressLimit"},

		{cb, `{"policy": %s}`, `"cfsQuotaBurstOnly"`, `"always"`, "policy"},
		{cb, `{"cpuBurstPercent": %s}`, "1", "0", "cpuBurstPercent"},
		{cb, `{"cpuBurstPercent": %s}`, "10000", "10001", "cpuBurstPercent"},
		{cb, `{"cfsQuotaBurstPercent": %s}`, "100", "99", "cfsQuotaBurstPercent"},
		{cb, `{"cfsQuotaBurstPeriodSeconds": %s}`, "-1", "-2", "cfsQuotaBurstPeriodSeconds"},
		{cb, `{"sharePoolThresholdPercent": %s}`, "100", "101", "sharePoolThresholdPercent"},

		{sys, `{"minFreeKbytesFactor": %s}`, "1", "0", "minFreeKbytesFactor"},
		{sys, `{"watermarkScaleFactor": %s}`, "1", "0", "watermarkScaleFactor"},
		{sys, `{"watermarkScaleFactor": %s}`, "400", "401", "watermarkScaleFactor"},
		{sys, `{"memcgReapBackGround": %s}`, "1", "2", "memcgReapBackGround"},
		{sys, `{"pageCacheLimitEnabled": %s}`, "0", "-1", "pageCacheLimitEnabled"},
		{sys, `{"totalNetworkBandwidth": %s}`, `"10G"`, `"10 G"`, "totalNetworkBandwidth"},

		{ha, `{"name": "a", "priority": %s}`, `"koord-batch"`, `"koord-high"`, "applications[0].priority"},
		{ha, `{"name": "a", "qos": %s}`, `"SYSTEM"`, `"GOLD"`, "applications[0].qos"},
		{ha, `{"name": "a", "cgroupPath": {"base": %s}}`, `"KubepodsBesteffort"`, `"Root"`, "applications[0].cgroupPath.base"},
	}
	for _, tt := range tests {
		for _, value := range []string{tt.ok, tt.bad} {
			name := fmt.Sprintf("%s/%s=%s", tt.key, tt.path, value)
			t.Run(name, func(t *testing.T) {
				strategy := fmt.Sprintf(tt.snippet, value)
				doc := `{"clusterStrategy": ` + strategy + `}`
				if tt.key == KeyHostApplication {
					doc = `{"applications": [` + strategy + `]}`
				}
				r := report(Load(map[string]string{string(tt.key): doc}, nil), tt.key)
				text := errorsText(r)
				if value == tt.ok {
					if !r.Valid() {
						t.Errorf("valid value rejected:\n%s", text)
					}
					return
				}
				if r.Valid() || !strings.Contains(text, tt.path+":") || !strings.Contains(text, string(tt.key)+": ") {
					t.Errorf("invalid value accepted or reported without its path %q:\n%s", tt.path, text)
				}
			})
		}
	}
}

// The example of the issue, word for word: a node strategy is validated
// merged with the cluster strategy, and reported at its own path.
func TestCrossFieldRulesSeeTheMergedValues(t *testing.T) {
	c := Load(map[string]string{string(KeyResourceThreshold): `{
	  "clusterStrategy": {"memoryEvictThresholdPercent": 80},
	  "nodeStrategies": [
	    {"name": "ok", "nodeSelector": {}, "memoryEvictLowerPercent": 70},
	    {"name": "bad", "nodeSelector": {"matchLabels": {"a": "b"}}, "memoryEvictLowerPercent": 90}]}`}, nil)
	r := report(c, KeyResourceThreshold)
	want := "resource-threshold-config: nodeStrategies[1].memoryEvictLowerPercent: Invalid value: 90: " +
		"must be less than memoryEvictThresholdPercent (80)"
	if got := errorsText(r); got != want {
		t.Errorf("errors\n got %s\nwant %s", got, want)
	}
}

// A cross-field error names the field the entry wrote: here the node
// strategy lowers the threshold below the cluster's lower mark.
func TestCrossFieldErrorsNameTheFieldTheEntryWrote(t *testing.T) {
	r := report(Load(map[string]string{string(KeyResourceThreshold): `{
	  "clusterStrategy": {"memoryEvictThresholdPercent": 80, "memoryEvictLowerPercent": 60},
	  "nodeStrategies": [{"nodeSelector": {}, "memoryEvictThresholdPercent": 50},
	                     {"nodeSelector": {}, "memoryEvictThresholdPercent": 50, "memoryEvictLowerPercent": 55}]}`}, nil),
		KeyResourceThreshold)
	want := "resource-threshold-config: nodeStrategies[0].memoryEvictThresholdPercent: Invalid value: 50: " +
		"must be greater than memoryEvictLowerPercent (60)\n" +
		"resource-threshold-config: nodeStrategies[1].memoryEvictLowerPercent: Invalid value: 55: " +
		"must be less than memoryEvictThresholdPercent (50)"
	if got := errorsText(r); got != want {
		t.Errorf("errors\n got %s\nwant %s", got, want)
	}
}

func TestAFaultOfTheClusterStrategyIsReportedOnce(t *testing.T) {
	r := report(Load(map[string]string{string(KeyCPUBurst): `{"clusterStrategy": {"cpuBurstPercent": 0},
	  "nodeStrategies": [{"nodeSelector": {"matchLabels": {"a": "1"}}}, {"nodeSelector": {"matchLabels": {"b": "1"}}, "cpuBurstPercent": -5}]}`},
		nil), KeyCPUBurst)
	want := "cpu-burst-config: clusterStrategy.cpuBurstPercent: Invalid value: 0: must be between 1 and 10000, inclusive\n" +
		"cpu-burst-config: nodeStrategies[1].cpuBurstPercent: Invalid value: -5: must be between 1 and 10000, inclusive"
	if got := errorsText(r); got != want {
		t.Errorf("errors\n got %s\nwant %s", got, want)
	}
}

func TestBadInputIsReportedWithPathAndPosition(t *testing.T) {
	tests := []struct {
		name, key, doc string
		errors         []string // substrings of the errors; none: the key must be valid
		warnings       []string // substrings of the warnings
	}{{
		name: "JSON syntax error with line and column", key: string(KeyCPUBurst),
		doc:    "{\n  \"clusterStrategy\": {\n    \"policy\": \"auto\",\n  }\n}",
		errors: []string{"cpu-burst-config: Invalid value: invalid JSON at line 4, column 3: invalid character '}'"},
	}, {
		name: "unterminated document", key: string(KeyCPUBurst), doc: `{"clusterStrategy": {`,
		errors: []string{"invalid JSON at line 1, column 22: unexpected end of JSON input"},
	}, {
		name: "empty value", key: string(KeySystem), doc: "  ",
		errors: []string{"the value is empty"},
	}, {
		name: "trailing data", key: string(KeySystem), doc: `{} {}`,
		errors: []string{"line 1, column 4: unexpected data after the end"},
	}, {
		name: "not an object", key: string(KeySystem), doc: `[1]`,
		errors: []string{"the document must be a JSON object"},
	}, {
		name: "type error with path and position", key: string(KeyResourceThreshold),
		doc:    "{\"clusterStrategy\": {\n \"enable\": \"yes\"}}",
		errors: []string{`clusterStrategy.enable: Invalid value: "yes": must be true or false (line 2, column 12)`},
	}, {
		name: "integer expected", key: string(KeyResourceThreshold),
		doc:    `{"nodeStrategies": [{"nodeSelector": {}, "cpuSuppressThresholdPercent": 6.5}]}`,
		errors: []string{`nodeStrategies[0].cpuSuppressThresholdPercent: Invalid value: 6.5: must be an integer (line 1, column 73)`},
	}, {
		name: "int32 overflow", key: string(KeyResourceThreshold),
		doc:    `{"clusterStrategy": {"evictEnabledPriorityThreshold": 3000000000}}`,
		errors: []string{`clusterStrategy.evictEnabledPriorityThreshold: Invalid value: 3000000000: must be an integer that fits in 32 bits`},
	}, {
		name: "object expected", key: string(KeyResourceQOS), doc: `{"clusterStrategy": {"lsClass": []}}`,
		errors: []string{`clusterStrategy.lsClass: Invalid value: "<array>": must be an object (line 1, column 33)`},
	}, {
		name: "node strategy without a selector", key: string(KeySystem),
		doc:    `{"nodeStrategies": [{"name": "lost", "minFreeKbytesFactor": 10}]}`,
		errors: []string{"nodeStrategies[0].nodeSelector: Required value: an entry without a nodeSelector never matches any node"},
	}, {
		name: "host-application node config without a selector", key: string(KeyHostApplication),
		doc:    `{"nodeConfigs": [{"name": "lost", "applications": [{"name": "x"}]}]}`,
		errors: []string{"nodeConfigs[0].nodeSelector: Required value"},
	}, {
		name: "selector syntax", key: string(KeySystem),
		doc:    `{"nodeStrategies": [{"nodeSelector": {"matchExpressions": [{"key": "a", "operator": "Has"}]}}]}`,
		errors: []string{`nodeStrategies[0].nodeSelector.matchExpressions[0].operator: Invalid value: "Has"`},
	}, {
		name: "selector label value", key: string(KeySystem),
		doc:    `{"nodeStrategies": [{"nodeSelector": {"matchLabels": {"a": "not valid!"}}}]}`,
		errors: []string{`nodeStrategies[0].nodeSelector.matchLabels: Invalid value: "not valid!"`},
	}, {
		name: "unknown field in a selector: an error, since dropping it would select every node", key: string(KeySystem),
		doc:    `{"nodeStrategies": [{"nodeSelector": {"matchLabel": {"a": "b"}}}]}`,
		errors: []string{`nodeStrategies[0].nodeSelector.matchLabel: Forbidden: unknown field in a label selector, which would select more nodes than meant; did you mean "matchLabels"? (line 1, column 39)`},
	}, {
		name: "unknown field: warned about with the closest known name", key: string(KeyResourceThreshold),
		doc:      `{"clusterStrategy": {"cpuSupressThresholdPercent": 50}, "nodeStrategie": []}`,
		warnings: []string{`clusterStrategy.cpuSupressThresholdPercent: unknown field, ignored; did you mean "cpuSuppressThresholdPercent"?`, `nodeStrategie: unknown field, ignored; did you mean "nodeStrategies"? (line 1, column 57)`},
	}, {
		name: "unknown field in a node strategy", key: string(KeyCPUBurst),
		doc:      `{"nodeStrategies": [{"nodeSelector": {}, "nodeSelecter": {"matchLabels": {"a": "b"}}}]}`,
		warnings: []string{`nodeStrategies[0].nodeSelecter: unknown field, ignored; did you mean "nodeSelector"?`},
	}, {
		name: "field name in the wrong case: accepted, as Koordinator's decoder does", key: string(KeyCPUBurst),
		doc:      `{"clusterStrategy": {"CPUBurstPercent": 200}}`,
		warnings: []string{`clusterStrategy.CPUBurstPercent: field name should be spelled "cpuBurstPercent"`},
	}, {
		name: "duplicate field", key: string(KeyCPUBurst),
		doc:      `{"clusterStrategy": {"policy": "auto", "policy": "none"}}`,
		warnings: []string{`clusterStrategy.policy: duplicate field; later values override earlier ones`},
	}, {
		name: "empty selector: warned about", key: string(KeySystem),
		doc:      `{"nodeStrategies": [{"nodeSelector": {}, "minFreeKbytesFactor": 10}]}`,
		warnings: []string{`nodeStrategies[0].nodeSelector: {} matches every node`, "put these values in clusterStrategy instead"},
	}, {
		name: "nesting too deep", key: string(KeySystem),
		doc:    `{"clusterStrategy": {"schedFeatures": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}`,
		errors: []string{"nesting deeper than 64 levels"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := report(Load(map[string]string{tt.key: tt.doc}, nil), Key(tt.key))
			errText, warnText := errorsText(r), warningsText(r)
			if len(tt.errors) == 0 && !r.Valid() {
				t.Errorf("unexpected errors:\n%s", errText)
			}
			for _, want := range tt.errors {
				if !strings.Contains(errText, want) {
					t.Errorf("errors lack %q:\n%s", want, errText)
				}
			}
			for _, want := range tt.warnings {
				if !strings.Contains(warnText, want) {
					t.Errorf("warnings lack %q:\n%s", want, warnText)
				}
			}
		})
	}
}

func TestAnInvalidKeyIsRejectedWholeAndTheOthersStand(t *testing.T) {
	c := Load(map[string]string{
		string(KeyCPUBurst): `{"clusterStrategy": {"policy": "auto"}, "nodeStrategies": [{"nodeSelector": {}, "cpuBurstPercent": 0}]}`,
		string(KeySystem):   `{"clusterStrategy": {"minFreeKbytesFactor": 7}}`,
	}, nil)
	if got := c.State(KeyCPUBurst); got != StateFrozen {
		t.Errorf("cpu-burst-config state %s, want %s", got, StateFrozen)
	}
	if got := c.State(KeySystem); got != StateConfigured {
		t.Errorf("system-config state %s, want %s", got, StateConfigured)
	}
	spec := c.Resolve(Node{Name: "n"}, nil).Spec
	if spec.CPUBurstStrategy.Policy != slov1alpha1.CPUBurstNone {
		t.Errorf("the valid clusterStrategy of a rejected key leaked: policy %s", spec.CPUBurstStrategy.Policy)
	}
	if *spec.SystemStrategy.MinFreeKbytesFactor != 7 {
		t.Error("the valid key was not applied")
	}
	if c.Valid() {
		t.Error("Valid() is true with an invalid key")
	}
}

func TestClosestName(t *testing.T) {
	known := []string{"watermark", "scaleFactor", "mode"}
	for in, want := range map[string]string{
		"watermrk":      "watermark",
		"scalefactors":  "scaleFactor",
		"MODE":          "mode",
		"somethingElse": "",
	} {
		if got := closestName(in, known); got != want {
			t.Errorf("closestName(%q) = %q, want %q", in, got, want)
		}
	}
}
