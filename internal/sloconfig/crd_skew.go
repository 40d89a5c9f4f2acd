package sloconfig

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// CRD version skew (docs/behaviour.md#crd-version-skew): the NodeSLO CRD
// installed in a cluster may be older than the API this controller writes,
// and the apiserver then prunes the fields it does not know from every
// write. The functions here compare what was sent with what was stored,
// without a client; the controllers, the webhook and the plugin do the
// writing and the dry runs.

// A field path names a field of a NodeSLO spec as a CRD schema does: JSON
// names joined by dots, with "[]" after a list, so that one path covers
// that field in every element, e.g.
// resourceQOSStrategy.lsClass.memoryQOS.pageCacheLimitPercent or
// hostApplications[].cgroupPath.base. A schema prunes by path, not by
// element, so this is the unit in which pruning is learned and reported.
const listElement = "[]"

// DroppedPaths returns, sorted, the paths of the fields sent has and stored
// lacks: what the apiserver pruned when it stored sent as stored. A field
// that is present with another value (a quantity written canonically) is
// not dropped. Only the outermost missing field of a subtree is named.
//
// Only the sections that differ are turned into JSON trees: an equal
// section cannot have lost a field, and the reconciler calls this for every
// NodeSLO it writes, where usually one section changed.
func DroppedPaths(sent, stored *slov1alpha1.NodeSLOSpec) []string {
	out := sets.New[string]()
	if sent != nil {
		sent, stored = differingSections(sent, stored)
		if sent != nil {
			droppedIn(specTree(sent), specTree(stored), "", out)
		}
	}
	return sets.List(out)
}

// differingSections returns copies of sent and stored without the sections
// the two hold equal (nil sent when all are); stored nil stays nil, as then
// every field of sent is missing.
func differingSections(sent, stored *slov1alpha1.NodeSLOSpec) (*slov1alpha1.NodeSLOSpec, *slov1alpha1.NodeSLOSpec) {
	if stored == nil {
		return sent, nil
	}
	a, b := *sent, *stored
	differ := false
	drop := func(equal bool, unset func()) {
		if equal {
			unset()
		} else {
			differ = true
		}
	}
	eq := equality.Semantic.DeepEqual
	drop(eq(a.ResourceUsedThresholdWithBE, b.ResourceUsedThresholdWithBE),
		func() { a.ResourceUsedThresholdWithBE, b.ResourceUsedThresholdWithBE = nil, nil })
	drop(eq(a.ResourceQOSStrategy, b.ResourceQOSStrategy),
		func() { a.ResourceQOSStrategy, b.ResourceQOSStrategy = nil, nil })
	drop(eq(a.CPUBurstStrategy, b.CPUBurstStrategy), func() { a.CPUBurstStrategy, b.CPUBurstStrategy = nil, nil })
	drop(eq(a.SystemStrategy, b.SystemStrategy), func() { a.SystemStrategy, b.SystemStrategy = nil, nil })
	drop(eq(a.Extensions, b.Extensions), func() { a.Extensions, b.Extensions = nil, nil })
	drop(eq(a.HostApplications, b.HostApplications), func() { a.HostApplications, b.HostApplications = nil, nil })
	if !differ && specEqual(&a, &b) {
		return nil, nil
	}
	return &a, &b
}

func droppedIn(sent, stored any, prefix string, out sets.Set[string]) {
	switch s := sent.(type) {
	case map[string]any:
		st, ok := stored.(map[string]any)
		if !ok {
			return
		}
		for name, value := range s {
			path := joinPath(prefix, name)
			if kept, ok := st[name]; ok {
				droppedIn(value, kept, path, out)
			} else {
				out.Insert(path)
			}
		}
	case []any:
		st, ok := stored.([]any)
		if !ok {
			return
		}
		for i := range min(len(s), len(st)) {
			droppedIn(s[i], st[i], prefix+listElement, out)
		}
	}
}

// WithoutPaths returns a copy of spec without the fields at paths: the spec
// a CRD that drops them would store. spec itself is not changed.
func WithoutPaths(spec *slov1alpha1.NodeSLOSpec, paths []string) slov1alpha1.NodeSLOSpec {
	tree := specTree(spec)
	for _, p := range paths {
		removePath(tree, strings.Split(p, "."))
	}
	var out slov1alpha1.NodeSLOSpec
	raw, err := json.Marshal(tree)
	if err == nil {
		err = json.Unmarshal(raw, &out)
	}
	if err != nil {
		// The tree came from a spec and lost fields only: it always decodes.
		panic(fmt.Sprintf("sloconfig: a NodeSLO spec without some fields does not decode: %v", err))
	}
	return out
}

func removePath(node any, segments []string) {
	name, isList := strings.CutSuffix(segments[0], listElement)
	obj, ok := node.(map[string]any)
	if !ok {
		return
	}
	if len(segments) == 1 && !isList {
		delete(obj, name)
		return
	}
	child, ok := obj[name]
	if !ok {
		return
	}
	if !isList {
		removePath(child, segments[1:])
		return
	}
	list, ok := child.([]any)
	if !ok {
		return
	}
	for _, element := range list {
		if len(segments) > 1 {
			removePath(element, segments[1:])
		}
	}
}

// specTree is spec as generic JSON (nil for a nil spec).
func specTree(spec *slov1alpha1.NodeSLOSpec) map[string]any {
	if spec == nil {
		return nil
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		panic(fmt.Sprintf("sloconfig: a NodeSLO spec does not encode: %v", err))
	}
	var tree map[string]any
	if err := json.Unmarshal(raw, &tree); err != nil {
		panic(fmt.Sprintf("sloconfig: a NodeSLO spec does not decode as JSON: %v", err))
	}
	return tree
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// specFieldOfKey is the top-level spec field each key fills.
var specFieldOfKey = map[string]Key{
	"resourceUsedThresholdWithBE": KeyResourceThreshold,
	"resourceQOSStrategy":         KeyResourceQOS,
	"cpuBurstStrategy":            KeyCPUBurst,
	"systemStrategy":              KeySystem,
	"hostApplications":            KeyHostApplication,
}

// KeyOfPath returns the ConfigMap key whose section holds the field at
// path, or "" for a field no key sets (extensions).
func KeyOfPath(path string) Key {
	top, _, _ := strings.Cut(path, ".")
	return specFieldOfKey[strings.TrimSuffix(top, listElement)]
}

// ProbeSpec returns one spec that holds every field any strategy of the
// configuration sets (the cluster strategy's and each node strategy's,
// merged: the first value of a field wins, list elements merge by
// position). Written with a server-side dry run, it shows every field the
// installed CRD would drop, for every node, in one request. Its values are
// each valid; a combination of them taken from different strategies may
// break a cross-field rule of a CRD that has such rules.
func (c *Config) ProbeSpec() slov1alpha1.NodeSLOSpec {
	var union map[string]any
	for _, k := range keyTable {
		for _, spec := range k.variants(c) {
			union = unionTree(union, specTree(&spec)).(map[string]any)
		}
	}
	if union == nil {
		union = map[string]any{}
	}
	base := specTree(&slov1alpha1.NodeSLOSpec{Extensions: emptyExtensions})
	union = unionTree(union, base).(map[string]any)
	var out slov1alpha1.NodeSLOSpec
	raw, err := json.Marshal(union)
	if err == nil {
		err = json.Unmarshal(raw, &out)
	}
	if err != nil {
		panic(fmt.Sprintf("sloconfig: the union of valid specs does not decode: %v", err))
	}
	return out
}

// StrategySpecs returns one spec per strategy of every key (the cluster
// strategy, then each node strategy), each with only that key's section
// set: specs the controller could write, which a CRD's cross-field rules
// accept, where ProbeSpec's union may not be.
func (c *Config) StrategySpecs() []slov1alpha1.NodeSLOSpec {
	var out []slov1alpha1.NodeSLOSpec
	for _, k := range keyTable {
		for _, spec := range k.variants(c) {
			spec.Extensions = emptyExtensions // as in every spec written
			out = append(out, spec)
		}
	}
	return out
}

// unionTree adds to a what only b has, recursively; a's values win.
func unionTree(a, b any) any {
	switch av := a.(type) {
	case nil:
		return b
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return a
		}
		if av == nil {
			return bv
		}
		for name, value := range bv {
			av[name] = unionTree(av[name], value)
		}
		return av
	case []any:
		bv, ok := b.([]any)
		if !ok {
			return a
		}
		for i := range bv {
			if i < len(av) {
				av[i] = unionTree(av[i], bv[i])
			} else {
				av = append(av, bv[i])
			}
		}
		return av
	default:
		return a
	}
}

// variants returns one spec per strategy of the key (the cluster strategy,
// then each node strategy), each with only the key's section set.
func (k sectionKey[V]) variants(c *Config) []slov1alpha1.NodeSLOSpec {
	s := k.in(c)
	values := make([]V, 0, 1+len(s.rules))
	values = append(values, s.fallback)
	for _, r := range s.rules {
		values = append(values, r.value)
	}
	out := make([]slov1alpha1.NodeSLOSpec, len(values))
	for i, v := range values {
		k.set(&out[i], v)
	}
	return out
}

// DroppedByKey groups dropped field paths by the ConfigMap key that sets
// them, in Keys order; paths of no key come last under "".
func DroppedByKey(paths []string) []KeyPaths {
	byKey := map[Key][]string{}
	for _, p := range paths {
		k := KeyOfPath(p)
		byKey[k] = append(byKey[k], p)
	}
	var out []KeyPaths
	for _, k := range append(slices.Clone(Keys), "") {
		if ps := byKey[k]; len(ps) > 0 {
			slices.Sort(ps)
			out = append(out, KeyPaths{Key: k, Paths: ps})
		}
	}
	return out
}

// KeyPaths are the dropped field paths of one key.
type KeyPaths struct {
	Key   Key
	Paths []string
}

// ValuesAt returns the values spec holds at path, as JSON: one, or one per
// element of each list the path goes through.
func ValuesAt(spec *slov1alpha1.NodeSLOSpec, path string) []string {
	var out []string
	var walk func(node any, segments []string)
	walk = func(node any, segments []string) {
		if len(segments) == 0 {
			raw, err := json.Marshal(node)
			if err == nil {
				out = append(out, string(raw))
			}
			return
		}
		name, isList := strings.CutSuffix(segments[0], listElement)
		obj, ok := node.(map[string]any)
		if !ok {
			return
		}
		child, ok := obj[name]
		if !ok {
			return
		}
		if !isList {
			walk(child, segments[1:])
			return
		}
		list, _ := child.([]any)
		for _, element := range list {
			walk(element, segments[1:])
		}
	}
	walk(specTree(spec), strings.Split(path, "."))
	return out
}
