package controller

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

func nodeMetadata(annotations map[string]string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Name: "n1", UID: "uid-1", ResourceVersion: "42",
		Labels:        map[string]string{"pool": "batch"},
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
			out, err := keepNodeResolveInputs(nodeMetadata(tt.annotations))
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
			if node.Name != "n1" || node.UID != "uid-1" || node.ResourceVersion != "42" || node.Labels["pool"] != "batch" {
				t.Errorf("an input was dropped: %+v", node.ObjectMeta)
			}
		})
	}
}

func TestKeepNodeResolveInputsLeavesTombstonesAlone(t *testing.T) {
	tomb := toolscache.DeletedFinalStateUnknown{Key: "n1"}
	out, err := keepNodeResolveInputs(tomb)
	if err != nil || out != tomb {
		t.Fatalf("got %v, %v", out, err)
	}
}
