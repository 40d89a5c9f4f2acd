package sloconfig

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// koordQOSConfig has the shape Koordinator decodes resource-qos-config into.
type koordQOSConfig struct {
	ClusterStrategy *slov1alpha1.ResourceQOSStrategy `json:"clusterStrategy,omitempty"`
	NodeStrategies  []koordQOSNodeStrategy           `json:"nodeStrategies,omitempty"`
}

type koordQOSNodeStrategy struct {
	Name         string                `json:"name,omitempty"`
	NodeSelector *metav1.LabelSelector `json:"nodeSelector,omitempty"`
	*slov1alpha1.ResourceQOSStrategy
}

// A repeated field means what encoding/json makes of it, which is what
// Koordinator's controller sees: the oracle here is encoding/json itself,
// decoding into Koordinator's shape of the document.
func TestARepeatedFieldIsDecodedAsEncodingJSONDoes(t *testing.T) {
	docs := map[string]string{
		"clusterStrategy twice: the objects merge": `{
		  "clusterStrategy": {"lsClass": {"cpuQOS": {"enable": true, "groupIdentity": 2}}},
		  "clusterStrategy": {"lsClass": {"cpuQOS": {"groupIdentity": 1}}, "beClass": {"cpuQOS": {"enable": false}}}}`,
		"a repeated list: element i merges into element i, the later length wins": `{"clusterStrategy": {
		  "beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device"}, {"name": "sdb", "type": "device"}]}},
		  "beClass": {"blkioQOS": {"blocks": [{"ioCfg": {"readIOPS": 10}}]}}}}`,
		"a repeated class, nested one level down": `{"clusterStrategy": {
		  "lsClass": {"memoryQOS": {"enable": true}},
		  "lsClass": {"memoryQOS": {"wmarkRatio": 90}, "resctrlQOS": {"mbaPercent": 50}}}}`,
		"a null for a pointer clears it": `{"clusterStrategy": {"lsClass": {"cpuQOS": {"groupIdentity": 2}}},
		  "clusterStrategy": {"lsClass": {"cpuQOS": {"groupIdentity": null}}}}`,
		"a field in another case is the same field": `{"clusterStrategy": {"policies": {"cpuPolicy": "coreSched"},
		  "Policies": {"netQOSPolicy": "tc"}}}`,
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			r := report(Load(map[string]string{string(KeyResourceQOS): doc}, nil), KeyResourceQOS)
			if !r.Valid() {
				t.Fatalf("rejected: %s", errorsText(r))
			}
			if !strings.Contains(warningsText(r), "duplicate field") &&
				!strings.Contains(warningsText(r), "field name should be spelled") {
				t.Errorf("no warning about the repeated field: %q", r.Warnings)
			}
			var koord koordQOSConfig
			if err := json.Unmarshal([]byte(doc), &koord); err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(koord.ClusterStrategy)
			if err != nil {
				t.Fatal(err)
			}
			spec := Load(map[string]string{string(KeyResourceQOS): doc}, nil).Resolve(Node{Name: "n"}, nil).Spec
			got := sectionJSON(t, spec, qosSection)
			if compact(t, got) != compact(t, string(want)) {
				t.Errorf("clusterStrategy\n got %s\nwant %s (encoding/json)", got, want)
			}
		})
	}
}

// nodeStrategies twice: encoding/json decodes the second list into the
// first, entry by entry (checked against encoding/json below), so entry 0
// keeps its name and selector, gains the second list's fields, and entry
// 1, absent from the shorter second list, is gone.
func TestRepeatedNodeStrategiesMergeEntryByEntry(t *testing.T) {
	doc := `{"nodeStrategies": [
	    {"name": "a", "nodeSelector": {"matchLabels": {"pool": "a"}}, "lsClass": {"cpuQOS": {"enable": true}}},
	    {"name": "b", "nodeSelector": {"matchLabels": {"pool": "b"}}}],
	  "nodeStrategies": [{"nodeSelector": {"matchLabels": {"zone": "z"}}, "lsClass": {"cpuQOS": {"groupIdentity": 2}}}]}`
	var koord koordQOSConfig
	if err := json.Unmarshal([]byte(doc), &koord); err != nil {
		t.Fatal(err)
	}
	if len(koord.NodeStrategies) != 1 || koord.NodeStrategies[0].Name != "a" ||
		len(koord.NodeStrategies[0].NodeSelector.MatchLabels) != 2 {
		t.Fatalf("encoding/json no longer merges entry by entry: %+v; revisit mergeRepeated", koord.NodeStrategies)
	}

	c := Load(map[string]string{string(KeyResourceQOS): doc}, nil)
	r := report(c, KeyResourceQOS)
	if !r.Valid() || !strings.Contains(warningsText(r), "nodeStrategies: duplicate field") ||
		!strings.Contains(warningsText(r), "(line 4, column 4)") {
		t.Fatalf("errors %q, warnings %q: want a warning at line 4", r.Messages(), r.Warnings)
	}
	both := c.Resolve(Node{Name: "n", Labels: map[string]string{poolLabel: "a", "zone": "z"}}, nil)
	if m := both.Matches[1]; m.Strategy != "a" || m.Index != 0 {
		t.Errorf("a node with both labels matched %+v, want entry 0 named a", m)
	}
	if got, want := sectionJSON(t, both.Spec, qosSection),
		`{"lsClass":{"cpuQOS":{"enable":true,"groupIdentity":2}}}`; compact(t, got) != want {
		t.Errorf("entry 0\n got %s\nwant %s", got, want)
	}
	if m := c.Resolve(Node{Name: "n", Labels: map[string]string{poolLabel: "b"}}, nil).Matches[1]; m.Index != -1 {
		t.Errorf("entry b, dropped by the shorter second list, still applies: %+v", m)
	}
	if m := c.Resolve(Node{Name: "n", Labels: map[string]string{poolLabel: "a"}}, nil).Matches[1]; m.Index != -1 {
		t.Errorf("the merged selector needs both labels; pool=a alone matched %+v", m)
	}
}

func TestARepeatedLabelKeepsTheLastValueWithAWarning(t *testing.T) {
	doc := "{\"nodeStrategies\": [{\"nodeSelector\": {\"matchLabels\": {\"pool\": \"a\",\n" +
		" \"pool\": \"b\"}}, \"minFreeKbytesFactor\": 10}]}"
	c := Load(map[string]string{string(KeySystem): doc}, nil)
	r := report(c, KeySystem)
	want := `nodeStrategies[0].nodeSelector.matchLabels[pool]: duplicate key; ` +
		`the later value replaces the earlier one (line 2, column 2)`
	if !r.Valid() || !strings.Contains(warningsText(r), want) {
		t.Fatalf("errors %q, warnings %q: want %q", r.Messages(), r.Warnings, want)
	}
	if m := c.Resolve(Node{Name: "n", Labels: map[string]string{poolLabel: "b"}}, nil).Matches[3]; m.Index != 0 {
		t.Errorf("pool=b did not match the last value: %+v", m)
	}
	if m := c.Resolve(Node{Name: "n", Labels: map[string]string{poolLabel: "a"}}, nil).Matches[3]; m.Index != -1 {
		t.Errorf("pool=a matched the overridden value: %+v", m)
	}
}

// A null for a field that is not a pointer is ignored by encoding/json:
// the earlier value stays.
func TestARepeatedNullKeepsANonPointerField(t *testing.T) {
	c := Load(map[string]string{string(KeyCPUBurst): `{"clusterStrategy": {"policy": "auto", "policy": null}}`}, nil)
	if got := c.Resolve(Node{Name: "n"}, nil).Spec.CPUBurstStrategy.Policy; got != slov1alpha1.CPUBurstAuto {
		t.Errorf("policy %s, want auto", got)
	}
}
