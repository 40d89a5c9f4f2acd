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
