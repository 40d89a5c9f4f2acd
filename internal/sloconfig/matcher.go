package sloconfig

import (
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// A matcher is a compiled selector tuned for resolving: every rule of a
// section is tried for every node (to spot nodes that match several), so
// each label key the section uses is looked up once per node, not once per
// rule, and requirements compare against the looked-up values.
type matcher struct {
	requirements []keyRequirement
}

// keyRequirement is one requirement of a selector, its key replaced by an
// index into the section's key table.
type keyRequirement struct {
	key      int
	operator selection.Operator
	values   []string
	original labels.Requirement // for operators LabelSelectorAsSelector never makes
}

// labelValue is a node's value for one key of the key table.
type labelValue struct {
	value   string
	present bool
}

// keyTable numbers the label keys a section's selectors use.
type keyTable struct {
	keys  []string
	index map[string]int
}

func (t *keyTable) indexOf(key string) int {
	if i, ok := t.index[key]; ok {
		return i
	}
	if t.index == nil {
		t.index = map[string]int{}
	}
	t.index[key] = len(t.keys)
	t.keys = append(t.keys, key)
	return len(t.keys) - 1
}

// newMatcher compiles sel against the key table.
func newMatcher(sel labels.Selector, table *keyTable) matcher {
	reqs, _ := sel.Requirements()
	m := matcher{requirements: make([]keyRequirement, len(reqs))}
	for i, r := range reqs {
		m.requirements[i] = keyRequirement{key: table.indexOf(r.Key()), operator: r.Operator(), values: r.Values().UnsortedList(), original: r}
	}
	return m
}

// lookup fetches the node's value of every key in keys into buf.
func lookup(keys []string, nodeLabels map[string]string, buf []labelValue) []labelValue {
	for _, k := range keys {
		v, ok := nodeLabels[k]
		buf = append(buf, labelValue{value: v, present: ok})
	}
	return buf
}

// matches reports whether the node whose looked-up values are vals (and
// whose labels are nodeLabels) satisfies every requirement, with the
// semantics of labels.Requirement.Matches.
func (m *matcher) matches(vals []labelValue, nodeLabels map[string]string) bool {
	for i := range m.requirements {
		r := &m.requirements[i]
		v := vals[r.key]
		var ok bool
		switch r.operator {
		case selection.In, selection.Equals, selection.DoubleEquals:
			ok = v.present && slices.Contains(r.values, v.value)
		case selection.NotIn, selection.NotEquals:
			ok = !v.present || !slices.Contains(r.values, v.value)
		case selection.Exists:
			ok = v.present
		case selection.DoesNotExist:
			ok = !v.present
		default:
			ok = r.original.Matches(labels.Set(nodeLabels))
		}
		if !ok {
			return false
		}
	}
	return true
}
