package sloconfig

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// parsedDocument is a key's document after the syntax and shape checks:
// plain JSON values with canonical field names, nothing merged yet.
type parsedDocument struct {
	// top holds the document's own fields other than the node entries
	// (clusterStrategy, or applications).
	top     map[string]any
	entries []nodeEntry
}

// nodeEntry is one node strategy or host-application node config as written.
type nodeEntry struct {
	name     string
	selector any // nil when the entry has no nodeSelector
	// patch is the rest of the entry: strategy fields, or applications.
	patch map[string]any
	path  *field.Path
}

// documentShape describes a key's document: its top-level fields and the
// fields each node entry may hold besides name and nodeSelector.
type documentShape struct {
	top        *fieldSet
	entriesKey string
	entry      *fieldSet
}

// newFieldSet builds a field set from explicit names and types.
func newFieldSet(fields map[string]reflect.Type) *fieldSet {
	fs := &fieldSet{byName: fields, byFold: map[string]string{}}
	for name := range fields {
		fs.names = append(fs.names, name)
		fs.byFold[strings.ToLower(name)] = name
	}
	slices.Sort(fs.names)
	return fs
}

// withProfile adds the node-entry profile fields (name, nodeSelector) to fs.
func withProfile(fs *fieldSet) *fieldSet {
	fields := map[string]reflect.Type{
		"name":         reflect.TypeFor[string](),
		"nodeSelector": reflect.TypeFor[*metav1.LabelSelector](),
	}
	maps.Copy(fields, fs.byName)
	return newFieldSet(fields)
}

// rootError is an error about the document as a whole.
func rootError(detail string) *field.Error {
	return &field.Error{Type: field.ErrorTypeInvalid, BadValue: field.OmitValueType{}, Detail: detail}
}

// parseAndCheck reads raw and checks it against shape. Errors mean the
// document cannot be used at all.
// The findings go on collecting what later steps find.
func parseAndCheck(raw string, shape documentShape) (*parsedDocument, *findings) {
	doc, serr := parseDocument(raw)
	c := &shapeChecker{doc: doc}
	if serr != nil {
		c.fail(rootError(fmt.Sprintf("invalid JSON at %s: %s", doc.position(serr.offset), serr.msg)))
		return nil, &c.findings
	}
	out := &parsedDocument{top: map[string]any{}}
	obj, isObject := doc.root.value.(jsonObject)
	if doc.root.value != nil && !isObject {
		c.fail(rootError(fmt.Sprintf("the document must be a JSON object (%s)", doc.position(doc.root.offset))))
		return nil, &c.findings
	}
	var entries []any
	seen := map[string]bool{}
	for _, m := range obj {
		name, ok := c.fieldName(shape.top, m, nil)
		if !ok {
			continue
		}
		path := field.NewPath(name)
		repeated := seen[name]
		seen[name] = true
		if name != shape.entriesKey {
			c.setField(out.top, name, shape.top.byName[name], m, path, repeated)
			continue
		}
		next := c.nodeEntryPatches(m.value, shape.entry, path)
		if repeated {
			c.warn(path, m.offset, "duplicate field; its entries are decoded into the earlier entries "+
				"one by one (entry i merges into entry i), as Koordinator's decoder does")
			next = mergeEntries(entries, next, shape.entry)
		}
		entries = next
	}
	out.entries = nodeEntries(entries, field.NewPath(shape.entriesKey))
	return out, &c.findings
}

// nodeEntryPatches checks a list of node entries; an element that is not
// an object (an error) is kept as nil so that indexes stay aligned.
func (c *shapeChecker) nodeEntryPatches(n *jsonNode, fs *fieldSet, path *field.Path) []any {
	if n.value == nil {
		return nil
	}
	arr, ok := n.value.(jsonArray)
	if !ok {
		c.typeError(path, n, "a list")
		return nil
	}
	patches := make([]any, len(arr))
	for i, elem := range arr {
		patches[i], _ = c.checkStruct(elem, fs, path.Index(i))
	}
	return patches
}

// mergeEntries decodes a repeated list of node entries into the earlier one.
func mergeEntries(prev, next []any, fs *fieldSet) []any {
	if next == nil {
		return nil // a null list clears it
	}
	merged, _ := mergeElements(prev, next, func(p, n any) any { return mergeFields(p, n, fs) }).([]any)
	return merged
}

// nodeEntries splits checked entry patches into profile (name, selector) and strategy fields.
func nodeEntries(patches []any, path *field.Path) []nodeEntry {
	entries := make([]nodeEntry, 0, len(patches))
	for i, p := range patches {
		patch, _ := p.(map[string]any)
		if patch == nil {
			continue
		}
		patch = maps.Clone(patch)
		e := nodeEntry{selector: patch["nodeSelector"], patch: patch, path: path.Index(i)}
		e.name, _ = patch["name"].(string)
		delete(patch, "name")
		delete(patch, "nodeSelector")
		entries = append(entries, e)
	}
	return entries
}
