package plugin

import (
	"bytes"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
)

// duplicateDataKeys warns about a key written twice under data or
// binaryData of a ConfigMap in the file (a List's items included). The
// conversion to JSON that every reader of the file goes through keeps the
// last value without a word, so a pasted second copy of a key silently
// replaces the first. Documents YAML cannot parse are left to the reader,
// which reports them.
func duplicateDataKeys(file []byte) []string {
	dec := yaml.NewDecoder(bytes.NewReader(file))
	var warnings []string
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			return warnings // io.EOF, or a document the reader reports itself
		}
		for _, obj := range configMapNodes(&doc) {
			for _, field := range []string{"data", "binaryData"} {
				warnings = append(warnings, repeatedKeys(obj, field)...)
			}
		}
	}
}

// configMapNodes returns the ConfigMaps of one document: the document
// itself, or the items of a List.
func configMapNodes(doc *yaml.Node) []*yaml.Node {
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	kind := member(root, "kind")
	if kind == nil {
		return nil
	}
	switch kind.Value {
	case "ConfigMap":
		return []*yaml.Node{root}
	case kindList, kindConfigMapList:
		items := member(root, "items")
		if items == nil || items.Kind != yaml.SequenceNode {
			return nil
		}
		return items.Content
	}
	return nil
}

// member returns the value of key in mapping m, or nil.
func member(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// repeatedKeys names each key of the ConfigMap's field (data or
// binaryData) written more than once, with its lines.
func repeatedKeys(cm *yaml.Node, field string) []string {
	m := member(cm, field)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	lines := map[string][]int{}
	var order []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if _, seen := lines[k.Value]; !seen {
			order = append(order, k.Value)
		}
		lines[k.Value] = append(lines[k.Value], k.Line)
	}
	var out []string
	for _, k := range order {
		if l := lines[k]; len(l) > 1 {
			out = append(out, fmt.Sprintf(
				"ConfigMap %s: %s key %q is written %d times (lines %s); only the last, at line %d, is used",
				nameOf(cm), field, clip(k), len(l), joinInts(l), l[len(l)-1]))
		}
	}
	return out
}

// nameOf is a ConfigMap's namespace/name as written (namespace may be empty).
func nameOf(cm *yaml.Node) string {
	meta := member(cm, "metadata")
	name, namespace := member(meta, "name"), member(meta, "namespace")
	ref := ConfigMapRef{}
	if name != nil {
		ref.Name = clip(name.Value)
	}
	if namespace != nil {
		ref.Namespace = clip(namespace.Value)
	}
	return ref.String()
}

func joinInts(v []int) string {
	var b bytes.Buffer
	for i, n := range v {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", n)
	}
	return b.String()
}
