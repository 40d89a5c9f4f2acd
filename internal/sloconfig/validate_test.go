package sloconfig

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig/rulecases"
)

// Every bound, enum and cross-field rule of docs/nodeslo-api.md#field-reference, from the
// table the agreement test in test/crd shares (internal/sloconfig/rulecases):
// the snippet is a clusterStrategy (or a host application) with %s
// standing for the value; ok must be accepted, bad rejected with an error
// at path. The rules where the engine is stricter than the CRD are judged
// here the same way.
func TestEveryRuleAcceptsAValidAndRejectsAnInvalidValue(t *testing.T) {
	for _, tt := range rulecases.EngineCases() {
		key, path := Key(tt.Section.Key), tt.EnginePath()
		for _, value := range []string{tt.OK, tt.Bad} {
			name := fmt.Sprintf("%s/%s=%s", key, path, value)
			t.Run(name, func(t *testing.T) {
				r := report(Load(map[string]string{string(key): tt.Document(value)}, nil), key)
				text := errorsText(r)
				if value == tt.OK {
					if !r.Valid() {
						t.Errorf("valid value rejected:\n%s", text)
					}
					return
				}
				if r.Valid() || !strings.Contains(text, path+":") || !strings.Contains(text, string(key)+": ") {
					t.Errorf("invalid value accepted or reported without its path %q:\n%s", path, text)
				}
			})
		}
	}
}

// The table's sections must be this package's keys, or its cases would
// test nothing.
func TestTheRuleTableUsesTheEnginesKeys(t *testing.T) {
	for _, s := range rulecases.Sections {
		if !slices.Contains(Keys, Key(s.Key)) {
			t.Errorf("rulecases section %q is not a key the engine reads (%v)", s.Key, Keys)
		}
	}
	if len(rulecases.Sections) != len(Keys) {
		t.Errorf("rulecases has %d sections, the engine %d keys", len(rulecases.Sections), len(Keys))
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
	  "nodeStrategies": [{"nodeSelector": {"matchLabels": {"a": "1"}}},
	                     {"nodeSelector": {"matchLabels": {"b": "1"}}, "cpuBurstPercent": -5}]}`},
		nil), KeyCPUBurst)
	want := "cpu-burst-config: clusterStrategy.cpuBurstPercent: Invalid value: 0: " +
		"must be between 1 and 10000, inclusive\n" +
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
		doc: `{"nodeStrategies": [{"nodeSelector": {}, "cpuSuppressThresholdPercent": 6.5}]}`,
		errors: []string{`nodeStrategies[0].cpuSuppressThresholdPercent: ` +
			`Invalid value: 6.5: must be an integer (line 1, column 73)`},
	}, {
		name: "int32 overflow", key: string(KeyResourceThreshold),
		doc: `{"clusterStrategy": {"evictEnabledPriorityThreshold": 3000000000}}`,
		errors: []string{`clusterStrategy.evictEnabledPriorityThreshold: ` +
			`Invalid value: 3000000000: must be an integer that fits in 32 bits`},
	}, {
		name: "object expected", key: string(KeyResourceQOS), doc: `{"clusterStrategy": {"lsClass": []}}`,
		errors: []string{`clusterStrategy.lsClass: Invalid value: "<array>": must be an object (line 1, column 33)`},
	}, {
		name: "node strategy without a selector", key: string(KeySystem),
		doc: `{"nodeStrategies": [{"name": "lost", "minFreeKbytesFactor": 10}]}`,
		errors: []string{"nodeStrategies[0].nodeSelector: " +
			"Required value: an entry without a nodeSelector never matches any node"},
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
		doc: `{"nodeStrategies": [{"nodeSelector": {"matchLabel": {"a": "b"}}}]}`,
		errors: []string{`nodeStrategies[0].nodeSelector.matchLabel: Forbidden: ` +
			`unknown field in a label selector, which would select more nodes than meant; ` +
			`did you mean "matchLabels"? (line 1, column 39)`},
	}, {
		name: "unknown field: warned about with the closest known name", key: string(KeyResourceThreshold),
		doc: `{"clusterStrategy": {"cpuSupressThresholdPercent": 50}, "nodeStrategie": []}`,
		warnings: []string{
			`clusterStrategy.cpuSupressThresholdPercent: unknown field, ignored; did you mean "cpuSuppressThresholdPercent"?`,
			`nodeStrategie: unknown field, ignored; did you mean "nodeStrategies"? (line 1, column 57)`,
		},
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
		doc: `{"nodeStrategies": [{"nodeSelector": {}, "minFreeKbytesFactor": 10}]}`,
		warnings: []string{
			`nodeStrategies[0].nodeSelector: {} matches every node`,
			"put these values in clusterStrategy instead",
		},
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
		string(KeyCPUBurst): `{"clusterStrategy": {"policy": "auto"}, ` +
			`"nodeStrategies": [{"nodeSelector": {}, "cpuBurstPercent": 0}]}`,
		string(KeySystem): `{"clusterStrategy": {"minFreeKbytesFactor": 7}}`,
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
