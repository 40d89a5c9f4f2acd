package sloconfig

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The compiled matcher must agree with labels.Selector on every operator,
// for nodes with, without and with other values of the keys.
func TestMatcherAgreesWithLabelSelector(t *testing.T) {
	selectors := []*metav1.LabelSelector{
		{},
		{MatchLabels: map[string]string{"a": "1"}},
		{MatchLabels: map[string]string{"a": "1", "b": ""}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpIn, Values: []string{"1", "2"}}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"1"}}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "b", Operator: metav1.LabelSelectorOpExists}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "b", Operator: metav1.LabelSelectorOpDoesNotExist}}},
		{MatchLabels: map[string]string{"a": "2"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "c", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"x", "y"}}}},
	}
	nodes := []map[string]string{
		nil, {"a": "1"}, {"a": "2"}, {"a": "1", "b": ""}, {"b": "x"}, {"a": "2", "c": "x"}, {"a": "2", "c": "z"}, {"c": "y"},
	}
	for i, ls := range selectors {
		sel, err := metav1.LabelSelectorAsSelector(ls)
		if err != nil {
			t.Fatal(err)
		}
		table := &keyTable{}
		m := newMatcher(sel, table)
		for _, node := range nodes {
			t.Run(fmt.Sprintf("selector %d on %v", i, node), func(t *testing.T) {
				vals := lookup(table.keys, node, nil)
				if got, want := m.matches(vals, node), sel.Matches(labels.Set(node)); got != want {
					t.Errorf("matcher says %v, labels.Selector %q says %v", got, sel, want)
				}
			})
		}
	}
}

// The index must never hide a matching rule: pick agrees with trying every
// rule, for nodes matching none, one and several rules of a section.
func TestIndexedPickAgreesWithTryingEveryRule(t *testing.T) {
	c := Load(map[string]string{string(KeyCPUBurst): `{"nodeStrategies": [
	  {"nodeSelector": {"matchLabels": {"pool": "a"}}},
	  {"nodeSelector": {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a", "b"]}]}},
	  {"nodeSelector": {"matchExpressions": [{"key": "pool", "operator": "NotIn", "values": ["a"]}]}},
	  {"nodeSelector": {}},
	  {"nodeSelector": {"matchLabels": {"zone": "z", "pool": "b"}}},
	  {"nodeSelector": {"matchExpressions": [{"key": "gpu", "operator": "Exists"}]}},
	  {"nodeSelector": {"matchLabels": {"zone": "z"}}}]}`}, nil)
	if !c.Valid() {
		t.Fatalf("invalid test configuration: %v", c.Reports())
	}
	sections := map[string]interface {
		check(t *testing.T, nodeLabels map[string]string)
	}{
		"test": &c.burst, "realistic threshold": &Load(realisticData, nil).threshold, "bench": &Load(benchData(), nil).system,
	}
	const zone, gpu = "zone", "gpu"
	nodes := []map[string]string{
		nil, {poolLabel: "a"}, {poolLabel: "b"}, {poolLabel: "c"}, {poolLabel: "b", zone: "z"}, {gpu: ""}, {zone: "z"},
		{benchPoolLabel: "pool-3", "topology.kubernetes.io/zone": "zone-a"}, {benchPoolLabel: "pool-3"},
		benchNode.Labels,
	}
	for name, s := range sections {
		for _, node := range nodes {
			t.Run(fmt.Sprintf("%s on %v", name, node), func(t *testing.T) { s.check(t, node) })
		}
	}
}

// check compares pick with a brute-force walk over every rule.
func (s *section[V]) check(t *testing.T, nodeLabels map[string]string) {
	vals := lookup(s.keys.keys, nodeLabels, nil)
	var all []int
	for i := range s.rules {
		if s.rules[i].matcher.matches(vals, nodeLabels) {
			all = append(all, i)
		}
	}
	got := s.pick(nodeLabels)
	wantIndex, wantAlso := -1, []int(nil)
	if len(all) > 0 {
		wantIndex, wantAlso = all[0], all[1:]
	}
	if got.index != wantIndex || fmt.Sprint(got.also) != fmt.Sprint(wantAlso) {
		t.Errorf("pick: first %d, also %v; every rule: first %d, also %v", got.index, got.also, wantIndex, wantAlso)
	}
}
