package sloconfig

import (
	"context"
	"fmt"
	"iter"
	"strconv"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Reach tells, for a set of nodes, how many nodes each node entry of the
// configuration in force matches and applies to. The controller exports it
// as the nodeslo_strategy_nodes metric; the admission webhook and
// `kubectl nodeslo validate --nodes` warn about an entry that matches no
// node, which is most often a typo in a label key or value
// (docs/behaviour.md, "Node strategies and their nodes").

// StrategyReach is how many nodes one node entry reaches: a node strategy,
// or a node config of host-application-config.
type StrategyReach struct {
	Key Key
	// Index is the entry's position in its list; Name its name, "" when
	// it has none.
	Index int
	Name  string
	// Label names the entry in the metric: its name (clipped as messages
	// clip it), or its index when it has none. It is unique within the
	// key, as two series alike would fail a scrape: an entry whose label
	// an earlier entry of the key took gets its index appended, "NAME[2]".
	Label string
	// Selector is the entry's nodeSelector as `kubectl get nodes -l` takes
	// it ("" selects every node).
	Selector string
	// Matched counts the nodes its selector matches; Applied the nodes it
	// applies to, those no earlier entry of the key matched (the first
	// match wins, as in Resolve).
	Matched, Applied int
}

// entryRef is what reaching needs of one compiled node entry.
type entryRef struct {
	name     string
	selector labels.Selector
}

// Reach matches every node entry of every key in force against the nodes
// whose labels nodeLabels yields, and returns the counts, key by key in
// Keys order and entry by entry, with the number of nodes. A Frozen key has
// no entry in force; a LastGood key's entries are its last good value's.
// Nodes alike in the labels the selectors read are matched once, so the
// cost grows with the number of distinct label combinations, not of nodes.
func (c *Config) Reach(nodeLabels iter.Seq[map[string]string]) (reach []StrategyReach, nodes int) {
	// context.Background never ends.
	reach, nodes, _ = c.ReachWithin(context.Background(), nodeLabels)
	return reach, nodes
}

// ReachWithin is Reach for a caller with a deadline (the admission
// webhook): it stops reading nodes and matching them when ctx ends, and
// then returns ctx's error and no counts.
func (c *Config) ReachWithin(
	ctx context.Context, nodeLabels iter.Seq[map[string]string],
) (reach []StrategyReach, nodes int, err error) {
	type keyEntries struct {
		entries []entryRef
		first   int // the index of the key's first entry in reach
	}
	var keys []keyEntries
	for _, k := range keyTable {
		entries := k.entries(c)
		if len(entries) == 0 {
			continue
		}
		keys = append(keys, keyEntries{entries: entries, first: len(reach)})
		names := entryLabels(entries)
		for i, e := range entries {
			reach = append(reach, StrategyReach{
				Key: k.name(), Index: i, Name: e.name, Label: names[i], Selector: e.selector.String(),
			})
		}
	}

	groups := groupByLabels(ctx, nodeLabels, c.SelectorLabelKeys())
	for _, g := range groups {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		set := labels.Set(g.labels)
		nodes += g.nodes
		for _, k := range keys {
			applied := false
			for i, e := range k.entries {
				if !e.selector.Matches(set) {
					continue
				}
				r := &reach[k.first+i]
				r.Matched += g.nodes
				if !applied {
					r.Applied += g.nodes
					applied = true
				}
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	return reach, nodes, nil
}

// labelGroup is a number of nodes alike in the labels selectors read, and
// the labels of one of them.
type labelGroup struct {
	labels map[string]string
	nodes  int
}

// groupByLabels groups nodes by their values (or absence) of keys, until
// ctx ends.
func groupByLabels(ctx context.Context, nodeLabels iter.Seq[map[string]string], keys []string) map[string]*labelGroup {
	groups := map[string]*labelGroup{}
	var buf []byte
	for l := range nodeLabels {
		if ctx.Err() != nil {
			break
		}
		buf = buf[:0]
		for _, k := range keys {
			buf = appendPresence(buf, l, k)
		}
		g := groups[string(buf)]
		if g == nil {
			g = &labelGroup{labels: l}
			groups[string(buf)] = g
		}
		g.nodes++
	}
	return groups
}

// appendPresence appends whether m has k and its value, length-prefixed so
// that no two different inputs append the same bytes.
func appendPresence(buf []byte, m map[string]string, k string) []byte {
	v, ok := m[k]
	if !ok {
		return append(buf, '-', ';')
	}
	buf = strconv.AppendInt(buf, int64(len(v)), 10)
	buf = append(buf, ':')
	return append(buf, v...)
}

// entryLabels names each entry for the metric (StrategyReach.Label).
func entryLabels(entries []entryRef) []string {
	taken := sets.New[string]()
	out := make([]string, len(entries))
	for i, e := range entries {
		label := echo(e.name)
		if e.name == "" {
			label = strconv.Itoa(i)
		}
		for taken.Has(label) {
			label = fmt.Sprintf("%s[%d]", label, i)
		}
		taken.Insert(label)
		out[i] = label
	}
	return out
}

// UnmatchedWarnings returns one warning line per node entry of reach whose
// selector matches none of the nodes (nodes of them, described by where,
// e.g. "in the cluster"): such an entry applies to no node. With no node
// at all there is nothing to say about any selector, and no warning.
func UnmatchedWarnings(reach []StrategyReach, nodes int, where string) []string {
	if nodes == 0 {
		return nil
	}
	var out []string
	for _, r := range reach {
		if r.Matched > 0 {
			continue
		}
		entry := "the node strategy"
		if r.Key == KeyHostApplication {
			entry = "the node config"
		}
		if r.Name != "" {
			entry = fmt.Sprintf("%s %q", entry[len("the "):], echo(r.Name))
		}
		misses := fmt.Sprintf("matches none of the %d nodes %s", nodes, where)
		if nodes == 1 {
			misses = "does not match the one node " + where
		}
		selector := r.Selector
		if selector == "" {
			selector = "{}"
		}
		out = append(out, fmt.Sprintf("%s: %s[%d].nodeSelector: %s %s, so it applies to no node (selector: %s)",
			r.Key, r.Key.entriesField(), r.Index, entry, misses, echo(selector)))
	}
	return out
}
