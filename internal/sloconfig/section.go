package sloconfig

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// section is one key's compiled value: node rules tried in order, and the
// fallback for nodes no rule matches (the cluster strategy, or the
// top-level host applications). V is a pointer to a strategy, or a list of
// host applications; either way it is shared and never written after Load.
type section[V any] struct {
	fallback V
	rules    []rule[V]
}

// rule is one node strategy (or host-application node config), merged
// with the cluster strategy and with its selector compiled.
type rule[V any] struct {
	name     string
	selector labels.Selector
	value    V
}

// Bounds of the warning about a node that several rules match: it is
// resolved for every node and recorded in an Event per node, so its size
// must not grow with the number of rules (4 × 500 overlapping strategies
// over the fleet), nor with their names.
const (
	// maxShadowedNamed is how many of the rules a node's first match
	// shadows the warning names; it counts the others.
	maxShadowedNamed = 3
	// maxRuleNameEchoed bounds each name it quotes.
	maxRuleNameEchoed = 64
)

// choice is the outcome of matching a node against a section.
type choice[V any] struct {
	value V
	index int // -1 for the fallback
	name  string
	// shadowed counts the later rules that matched too, which the first
	// one shadows; also lists the first maxShadowedNamed of them.
	shadowed int
	also     []int
}

// pick returns the first rule whose selector matches, else the fallback,
// and notes any further matching rules (they never win, but the operator
// should hear about them).
func (s *section[V]) pick(nodeLabels map[string]string) choice[V] {
	c := choice[V]{value: s.fallback, index: -1}
	set := labels.Set(nodeLabels)
	for i := range s.rules {
		if !s.rules[i].selector.Matches(set) {
			continue
		}
		switch {
		case c.index < 0:
			c.value, c.index, c.name = s.rules[i].value, i, s.rules[i].name
		case c.shadowed < maxShadowedNamed:
			c.also = append(c.also, i)
			c.shadowed++
		default:
			c.shadowed++
		}
	}
	return c
}

// describe names a rule for messages: its name (clipped) when it has one,
// always its index.
func (s *section[V]) describe(i int) string {
	if s.rules[i].name != "" {
		return fmt.Sprintf("%q (index %d)", Truncate(s.rules[i].name, maxRuleNameEchoed), i)
	}
	return fmt.Sprintf("index %d", i)
}

// multipleMatchesMessage says which entries of key matched a node and which
// one won, naming the first maxShadowedNamed of those it shadows and
// counting the rest: a few hundred bytes, however many entries matched.
func (s *section[V]) multipleMatchesMessage(key Key, c choice[V]) string {
	list := key.entriesField()
	others := make([]string, len(c.also))
	for i, idx := range c.also {
		others[i] = s.describe(idx)
	}
	shadowed := strings.Join(others, ", ")
	if rest := c.shadowed - len(c.also); rest > 0 {
		shadowed += fmt.Sprintf(" and %d more", rest)
	}
	verb := "matches and is"
	if c.shadowed > 1 {
		verb = "match and are"
	}
	return fmt.Sprintf("%s: the node matches %d entries of %s: the first, %s, applies; %s also %s ignored",
		key, c.shadowed+1, list, s.describe(c.index), shadowed, verb)
}

// The JSON names of the lists of node entries.
const (
	fieldNodeStrategies = "nodeStrategies"
	fieldNodeConfigs    = "nodeConfigs"
)

// entriesField is the name of the list of node entries in key's document.
func (k Key) entriesField() string {
	if k == KeyHostApplication {
		return fieldNodeConfigs
	}
	return fieldNodeStrategies
}
