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

// ruleIndex narrows the rules worth trying for a node. A rule requiring
// key k to hold one of some values can only match nodes with one of those
// values, so it is filed under each of them; the other rules are always
// tried. Each rule is filed under one key only, so no rule is listed twice.
type ruleIndex struct {
	byKey     []valueIndex
	unindexed []int // rule positions, ascending
}

// valueIndex files rules by the value they require for one key.
type valueIndex struct {
	key   int              // position in the section's key table
	rules map[string][]int // value -> rule positions, ascending
}

// newRuleIndex files every matcher under its first In or Equals requirement.
func newRuleIndex(matchers []*matcher) ruleIndex {
	var idx ruleIndex
	byKey := map[int]int{} // key -> position in idx.byKey
	for i, m := range matchers {
		req := m.indexable()
		if req == nil {
			idx.unindexed = append(idx.unindexed, i)
			continue
		}
		pos, ok := byKey[req.key]
		if !ok {
			pos = len(idx.byKey)
			byKey[req.key] = pos
			idx.byKey = append(idx.byKey, valueIndex{key: req.key, rules: map[string][]int{}})
		}
		for _, v := range req.values {
			idx.byKey[pos].rules[v] = append(idx.byKey[pos].rules[v], i)
		}
	}
	return idx
}

// indexable returns the first requirement that names the values it accepts.
func (m *matcher) indexable() *keyRequirement {
	for i := range m.requirements {
		switch m.requirements[i].operator {
		case selection.In, selection.Equals, selection.DoubleEquals:
			return &m.requirements[i]
		}
	}
	return nil
}

// candidates appends, in ascending order, the positions of the rules that
// may match a node whose looked-up values are vals.
func (idx *ruleIndex) candidates(vals []labelValue, buf []int) []int {
	buf = append(buf, idx.unindexed...)
	for i := range idx.byKey {
		if v := vals[idx.byKey[i].key]; v.present {
			buf = append(buf, idx.byKey[i].rules[v.value]...)
		}
	}
	slices.Sort(buf)
	return buf
}
