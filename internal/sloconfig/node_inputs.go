package sloconfig

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A Node contributes to its NodeSLO through Node (name, labels and the
// annotations in inputAnnotations) and nothing else (docs/behaviour.md,
// "Triggers"). Everything that depends on what a node contributes goes
// through the functions below: the Node cache's transform keeps the inputs
// (TrimToInputs), the Node watch lets through the changes of them
// (SameInputs), and Resolve reads them. Adding an input is a change to this file and to
// Resolve; TestEveryNodeInputReachesEveryConsumer (internal/controller)
// fails while one of these places ignores it.

// inputAnnotations are the annotations Resolve reads; a Node's other
// annotations do not matter.
var inputAnnotations = []string{NetworkBandwidthAnnotation}

// InputAnnotations returns the annotations Resolve reads.
func InputAnnotations() []string { return slices.Clone(inputAnnotations) }

// NodeOf is what obj, a Node (usually its metadata), contributes: its
// name, its labels (LabelsOf) and its input annotations (shared when obj
// has no other annotation, as a Node from the trimmed cache).
func NodeOf(obj metav1.Object) Node {
	return Node{Name: obj.GetName(), Labels: LabelsOf(obj), Annotations: onlyInputAnnotations(obj.GetAnnotations())}
}

// nameAsHostname stands, in a trimmed Node's labels, for the value of the
// label kubernetes.io/hostname when it is the Node's name, as the kubelet
// sets it. That label is the only one that differs from node to node in
// most clusters: without it the labels of a pool's nodes are one map,
// shared (labelMaps), which saves about 1 KiB a cached node
// (docs/performance.md#memory). No label value holds a NUL, so it stands
// for nothing else.
const nameAsHostname = "\x00the Node's name"

// labelMaps shares the trimmed Nodes' label maps.
var labelMaps SharedMaps

// LabelsOf is obj's labels as the Node has them, read-only: a trimmed
// Node's shared map is copied with kubernetes.io/hostname put back. Every
// reader of a Node's labels goes through it (or NodeOf); one that read the
// map itself would see the stand-in.
func LabelsOf(obj metav1.Object) map[string]string {
	labels := obj.GetLabels()
	if labels[corev1.LabelHostname] != nameAsHostname {
		return labels
	}
	out := maps.Clone(labels)
	out[corev1.LabelHostname] = obj.GetName()
	return out
}

// TrimToInputs drops from obj every annotation that is not an input,
// interns its labels' keys and values (InternLabels) and, when its
// kubernetes.io/hostname is its name, makes its labels a map shared with
// every Node whose other labels are the same (read back by LabelsOf).
func TrimToInputs(obj metav1.Object) {
	all := obj.GetAnnotations()
	if inputs := onlyInputAnnotations(all); len(inputs) != len(all) || (inputs == nil) != (all == nil) {
		obj.SetAnnotations(inputs)
	}
	labels := obj.GetLabels()
	InternLabels(labels)
	if name := obj.GetName(); name != "" && labels[corev1.LabelHostname] == name {
		labels[corev1.LabelHostname] = nameAsHostname
		obj.SetLabels(labelMaps.Share(labels))
	}
}

// onlyInputAnnotations returns the input annotations of all: all itself
// when it holds nothing else, nil when it holds none.
func onlyInputAnnotations(all map[string]string) map[string]string {
	present := 0
	for _, k := range inputAnnotations {
		if _, ok := all[k]; ok {
			present++
		}
	}
	switch present {
	case 0:
		return nil
	case len(all):
		return all
	}
	out := make(map[string]string, present)
	for _, k := range inputAnnotations {
		if v, ok := all[k]; ok {
			out[k] = v
		}
	}
	return out
}

// SameNodeInputs reports whether old and new, two versions of one Node,
// contribute the same (SameInputs). Their labels are compared as cached,
// uncopied: under one name the hostname's stand-in stands for the same
// value in both. It runs on every Node update, a kubelet's status updates
// included.
func SameNodeInputs(old, new metav1.Object) bool {
	if old.GetName() != new.GetName() {
		return NodeOf(old).SameInputs(NodeOf(new))
	}
	return Node{Labels: old.GetLabels(), Annotations: onlyInputAnnotations(old.GetAnnotations())}.SameInputs(
		Node{Labels: new.GetLabels(), Annotations: onlyInputAnnotations(new.GetAnnotations())})
}

// SameInputs reports whether n and o contribute the same to their NodeSLO:
// equal labels (nil and empty alike) and the same input annotations, each
// set or not, with the same value. Names are not compared.
func (n Node) SameInputs(o Node) bool {
	if !maps.Equal(n.Labels, o.Labels) {
		return false
	}
	for _, k := range inputAnnotations {
		v1, set1 := n.Annotations[k]
		v2, set2 := o.Annotations[k]
		if v1 != v2 || set1 != set2 {
			return false
		}
	}
	return true
}

// NodeMetadata is an empty Node read as metadata only: the controllers and
// the webhook read Nodes only for what NodeOf keeps.
func NodeMetadata() *metav1.PartialObjectMetadata {
	return metadataOf(corev1.SchemeGroupVersion.WithKind("Node"))
}

// NodeMetadataList is an empty list of Nodes read as metadata only.
func NodeMetadataList() *metav1.PartialObjectMetadataList {
	return metadataListOf(corev1.SchemeGroupVersion.WithKind("NodeList"))
}

// metadataOf is an empty object of kind gvk read as metadata only.
func metadataOf(gvk schema.GroupVersionKind) *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(gvk)
	return m
}

// metadataListOf is an empty list of kind gvk read as metadata only.
func metadataListOf(gvk schema.GroupVersionKind) *metav1.PartialObjectMetadataList {
	l := &metav1.PartialObjectMetadataList{}
	l.SetGroupVersionKind(gvk)
	return l
}
