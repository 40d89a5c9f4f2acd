package plugin

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// DiffInputs are what `kubectl nodeslo diff` compares: the nodes and
// their stored NodeSLO specs (live), and the ConfigMap data of the file.
type DiffInputs struct {
	Nodes []sloconfig.Node
	// Stored holds each node's stored NodeSLO spec by node name; a node
	// without one is absent.
	Stored map[string]*slov1alpha1.NodeSLOSpec
	Data   map[string]string
}

// FieldChange is one field of a NodeSLO spec that would change, with its
// JSON path and its old and new values as compact JSON ("<none>" when unset).
type FieldChange struct {
	Path, Old, New string
}

// NodeDiff is one node whose NodeSLO would change.
type NodeDiff struct {
	Node string
	// Created: the node has no NodeSLO; the controller would create one.
	Created bool
	Changes []FieldChange
}

// DiffResult is the outcome of a diff.
type DiffResult struct {
	Reports []sloconfig.SectionReport
	// Retired is what the retired rollout key of the file says, if it has one.
	Retired sloconfig.KeyLines
	// Changed lists the nodes whose NodeSLO would change, by name.
	Changed []NodeDiff
	Nodes   int
}

// Valid reports whether every key of the file was accepted (the retired
// rollout key never is).
func (r DiffResult) Valid() bool {
	for _, rep := range r.Reports {
		if !rep.Valid() {
			return false
		}
	}
	return len(r.Retired.Errors) == 0
}

// none stands for an unset field in a FieldChange.
const none = "<none>"

// Diff resolves every node against the file's configuration, as the
// controller would once the file is applied, and compares the result with
// the stored spec (sloconfig.SpecEqual). An invalid key of the file is
// resolved as frozen, i.e. the stored value stays, which is what the
// controller keeps too (docs/behaviour.md#bad-input).
func Diff(in DiffInputs) DiffResult {
	cfg := sloconfig.Load(in.Data, nil)
	out := DiffResult{Reports: cfg.Reports(), Retired: rollout.RetiredKeyLines(in.Data), Nodes: len(in.Nodes)}
	nodes := slices.SortedFunc(slices.Values(in.Nodes), func(a, b sloconfig.Node) int {
		return strings.Compare(a.Name, b.Name)
	})
	for _, node := range nodes {
		stored := in.Stored[node.Name]
		resolved := cfg.Resolve(node, stored).Spec
		switch {
		case stored == nil:
			out.Changed = append(out.Changed, NodeDiff{Node: node.Name, Created: true})
		case !sloconfig.SpecEqual(stored, &resolved):
			out.Changed = append(out.Changed, NodeDiff{Node: node.Name, Changes: specChanges(stored, &resolved)})
		}
	}
	return out
}

// specChanges lists the leaf fields in which two specs differ, by JSON
// path. Quantities marshal canonically, so 1000M and 1G do not differ;
// an empty list or object counts as unset, as in SpecEqual.
func specChanges(old, updated *slov1alpha1.NodeSLOSpec) []FieldChange {
	var changes []FieldChange
	diffTrees(field.NewPath("spec"), jsonTree(old), jsonTree(updated), &changes)
	return changes
}

// jsonTree is a spec as plain JSON values.
func jsonTree(spec *slov1alpha1.NodeSLOSpec) any {
	// A spec always marshals, and its JSON always decodes.
	b, _ := json.Marshal(spec)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree any
	_ = dec.Decode(&tree)
	return tree
}

// diffTrees appends the differences between old and updated below path:
// objects field by field, lists of the same length element by element, and
// anything else (a list that changed length included) whole.
func diffTrees(path *field.Path, old, updated any, out *[]FieldChange) {
	if isUnset(old) && isUnset(updated) {
		return
	}
	oldObj, oldIsObj := old.(map[string]any)
	newObj, newIsObj := updated.(map[string]any)
	if oldIsObj && newIsObj {
		keys := slices.Sorted(maps.Keys(oldObj))
		for k := range newObj {
			if _, ok := oldObj[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			diffTrees(path.Child(k), oldObj[k], newObj[k], out)
		}
		return
	}
	oldList, oldIsList := old.([]any)
	newList, newIsList := updated.([]any)
	if oldIsList && newIsList && len(oldList) == len(newList) {
		for i := range oldList {
			diffTrees(path.Index(i), oldList[i], newList[i], out)
		}
		return
	}
	if o, n := compactJSON(old), compactJSON(updated); o != n {
		*out = append(*out, FieldChange{Path: path.String(), Old: o, New: n})
	}
}

// isUnset reports a missing value, null, or an empty list or object.
func isUnset(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}

func compactJSON(v any) string {
	if isUnset(v) {
		return none
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Write prints the errors and warnings of the file's keys on errOut, then,
// on out, each changed node with its fields (old -> new), and a summary.
func (r DiffResult) Write(out, errOut io.Writer) error {
	for _, rep := range r.Reports {
		printMessages(rep.Messages(), rep.WarningMessages(), errOut, errOut)
	}
	printMessages(r.Retired.Errors, nil, errOut, errOut)
	b := bufio.NewWriterSize(out, 64<<10)
	// A write error sticks to b and comes back from Flush.
	printf := func(format string, args ...any) { fprintf(b, format, args...) }
	created := 0
	for _, n := range r.Changed {
		if n.Created {
			created++
			printf("node %s: no NodeSLO yet; one would be created\n", clip(n.Node))
			continue
		}
		printf("node %s:\n", clip(n.Node))
		for _, c := range n.Changes {
			printf("  %s: %s -> %s\n", c.Path, clip(c.Old), clip(c.New))
		}
	}
	printf("%d of %d nodes would change (%d updated, %d created), %d unchanged\n",
		len(r.Changed), r.Nodes, len(r.Changed)-created, created, r.Nodes-len(r.Changed))
	return b.Flush()
}
