package sloconfig

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// trimmedNode is a Node's metadata as the cache's transform leaves it.
func trimmedNode(name string, nodeLabels map[string]string) *metav1.ObjectMeta {
	obj := &metav1.ObjectMeta{Name: name, Labels: maps.Clone(nodeLabels)}
	TrimToInputs(obj)
	return obj
}

// Nodes that differ only in their kubernetes.io/hostname, which is their
// name, share one labels map once trimmed; every reader (NodeOf, LabelsOf)
// still sees each node's own hostname, so a selector on it matches the one
// node. A hostname that is not the name, or none, is kept as it is.
func TestTrimmedNodesShareTheirLabelsButTheirHostname(t *testing.T) {
	pool := func(hostname string) map[string]string {
		return map[string]string{poolLabel: poolWeb, "topology.kubernetes.io/zone": "a", corev1.LabelHostname: hostname}
	}
	a, b := trimmedNode("node-a", pool("node-a")), trimmedNode("node-b", pool("node-b"))
	if !same(a.Labels, b.Labels) {
		t.Error("two nodes of one pool hold a labels map each")
	}
	selector := labels.SelectorFromSet(labels.Set{corev1.LabelHostname: "node-b"})
	for _, c := range []struct {
		obj      *metav1.ObjectMeta
		hostname string
		matches  bool
	}{{a, "node-a", false}, {b, "node-b", true}} {
		got := NodeOf(c.obj)
		if !maps.Equal(got.Labels, pool(c.hostname)) || !maps.Equal(LabelsOf(c.obj), pool(c.hostname)) {
			t.Errorf("%s: labels %v, want %v", c.obj.Name, got.Labels, pool(c.hostname))
		}
		if selector.Matches(labels.Set(got.Labels)) != c.matches {
			t.Errorf("%s: a selector on its hostname matches: %t", c.obj.Name, !c.matches)
		}
	}
	if got := b.Labels[corev1.LabelHostname]; got != nameAsHostname {
		t.Errorf("the shared map holds hostname %q", got)
	}

	other := trimmedNode("node-c", pool("ip-10-0-0-3.internal"))
	if same(other.Labels, a.Labels) || !maps.Equal(NodeOf(other).Labels, pool("ip-10-0-0-3.internal")) {
		t.Errorf("a hostname other than the name: labels %v", other.Labels)
	}
	none := trimmedNode("node-d", map[string]string{poolLabel: poolWeb})
	if _, ok := NodeOf(none).Labels[corev1.LabelHostname]; ok {
		t.Error("a node without a hostname was given one")
	}
	if !NodeOf(a).SameInputs(NodeOf(trimmedNode("node-a", pool("node-a")))) {
		t.Error("the same node trimmed twice has other inputs")
	}
}

// Two versions of one trimmed Node compare as the Node compares, their
// shared maps uncopied: a status update is no change; a label's change is,
// and so is a hostname that stops being the name.
func TestSameNodeInputsOfTrimmedVersions(t *testing.T) {
	const name = "node-a"
	web := map[string]string{poolLabel: poolWeb, corev1.LabelHostname: name}
	relabelled := map[string]string{poolLabel: "batch", corev1.LabelHostname: name}
	renamed := map[string]string{poolLabel: poolWeb, corev1.LabelHostname: "ip-10-0-0-1"}
	old := trimmedNode(name, web)
	for _, c := range []struct {
		name   string
		labels map[string]string
		same   bool
	}{{"a status update", web, true}, {"a label changed", relabelled, false}, {"another hostname", renamed, false}} {
		if got := SameNodeInputs(old, trimmedNode(name, c.labels)); got != c.same {
			t.Errorf("%s: same inputs %t", c.name, got)
		}
	}
}
