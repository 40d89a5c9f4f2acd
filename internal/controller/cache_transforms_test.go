package controller

import (
	"maps"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// poolLabel is the label the test nodes carry.
const poolLabel = "pool"

func nodeMetadata(annotations map[string]string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Name: "n1", UID: "uid-1", ResourceVersion: "42",
		Labels:        map[string]string{poolLabel: "batch"},
		Annotations:   annotations,
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}},
	}}
}

func TestKeepNodeResolveInputs(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		want        map[string]string
	}{
		{"no annotations", nil, nil},
		{"others only: all dropped", map[string]string{"a": "1", "b": "2"}, nil},
		{"bandwidth among others: kept alone",
			map[string]string{"a": "1", sloconfig.NetworkBandwidthAnnotation: "25G"},
			map[string]string{sloconfig.NetworkBandwidthAnnotation: "25G"}},
		{"bandwidth alone: kept", map[string]string{sloconfig.NetworkBandwidthAnnotation: "1G"},
			map[string]string{sloconfig.NetworkBandwidthAnnotation: "1G"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := keepNodeResolveInputs()(nodeMetadata(tt.annotations))
			if err != nil {
				t.Fatal(err)
			}
			node := out.(*metav1.PartialObjectMetadata)
			if node.ManagedFields != nil {
				t.Errorf("managedFields kept: %v", node.ManagedFields)
			}
			if len(node.Annotations) != len(tt.want) {
				t.Errorf("annotations %v, want %v", node.Annotations, tt.want)
			}
			for k, v := range tt.want {
				if node.Annotations[k] != v {
					t.Errorf("annotations %v, want %v", node.Annotations, tt.want)
				}
			}
			// What the reconciler and the Events read is all still there.
			if node.Name != "n1" || node.UID != "uid-1" || node.ResourceVersion != "42" || node.Labels[poolLabel] != "batch" {
				t.Errorf("an input was dropped: %+v", node.ObjectMeta)
			}
		})
	}
}

func TestKeepNodeResolveInputsLeavesTombstonesAlone(t *testing.T) {
	tomb := toolscache.DeletedFinalStateUnknown{Key: "n1"}
	out, err := keepNodeResolveInputs()(tomb)
	if err != nil || out != tomb {
		t.Errorf("got %v, %v", out, err)
	}
}

// Nodes with the same bandwidth annotation share one map of it; another
// value has its own.
func TestKeepNodeResolveInputsSharesAnnotations(t *testing.T) {
	transform := keepNodeResolveInputs()
	of := func(bandwidth string) map[string]string {
		out, err := transform(nodeMetadata(map[string]string{"a": "1", sloconfig.NetworkBandwidthAnnotation: bandwidth}))
		if err != nil {
			t.Fatal(err)
		}
		return out.(*metav1.PartialObjectMetadata).Annotations
	}
	a, b, c := of("25G"), of("25G"), of("10G")
	same := func(x, y map[string]string) bool {
		return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	}
	if !same(a, b) {
		t.Error("equal annotations are not one map")
	}
	if same(a, c) || c[sloconfig.NetworkBandwidthAnnotation] != "10G" {
		t.Errorf("different annotations are shared: %v", c)
	}
}

// Two nodes with the same labels hold one copy of each label string. The
// key is this test's own: the table of shared strings is the process's,
// and another test's values of a common key could exhaust its bound.
func TestKeepNodeResolveInputsSharesLabelStrings(t *testing.T) {
	const key, value = "test.nodeslo.dev/shared-strings", "shared"
	transform := keepNodeResolveInputs()
	a, b := nodeMetadata(nil), nodeMetadata(nil)
	// Equal strings in distinct memory, as two decoded objects have them.
	a.Labels = map[string]string{strings.Clone(key): strings.Clone(value)}
	b.Labels = map[string]string{strings.Clone(key): strings.Clone(value)}
	for _, n := range []*metav1.PartialObjectMetadata{a, b} {
		if _, err := transform(n); err != nil {
			t.Fatal(err)
		}
	}
	if !maps.Equal(a.Labels, b.Labels) || a.Labels[key] != value {
		t.Fatalf("labels changed: %v, %v", a.Labels, b.Labels)
	}
	if unsafe.StringData(a.Labels[key]) != unsafe.StringData(b.Labels[key]) {
		t.Error("the two nodes hold separate copies of the label value")
	}
	keyOf := func(m map[string]string) *byte {
		for k := range m {
			return unsafe.StringData(k)
		}
		return nil
	}
	if keyOf(a.Labels) != keyOf(b.Labels) {
		t.Error("the two nodes hold separate copies of the label key")
	}
}
