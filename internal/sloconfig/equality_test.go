package sloconfig

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

func TestSpecEqual(t *testing.T) {
	bandwidth := func(q string) *slov1alpha1.NodeSLOSpec {
		return &slov1alpha1.NodeSLOSpec{
			SystemStrategy: &slov1alpha1.SystemStrategy{TotalNetworkBandwidth: resource.MustParse(q)},
		}
	}
	tests := []struct {
		name  string
		a, b  *slov1alpha1.NodeSLOSpec
		equal bool
	}{
		{"quantities by value", bandwidth("1000M"), bandwidth("1G"), true},
		{"different quantities", bandwidth("1000M"), bandwidth("1Gi"), false},
		{"extensions with an empty or a nil Object map",
			&slov1alpha1.NodeSLOSpec{Extensions: &slov1alpha1.ExtensionsMap{Object: map[string]any{}}},
			&slov1alpha1.NodeSLOSpec{Extensions: &slov1alpha1.ExtensionsMap{}}, true},
		{"nil and empty host applications",
			&slov1alpha1.NodeSLOSpec{HostApplications: []slov1alpha1.HostApplicationSpec{}}, &slov1alpha1.NodeSLOSpec{}, true},
		{"nil and empty map",
			&slov1alpha1.NodeSLOSpec{SystemStrategy: &slov1alpha1.SystemStrategy{SchedFeatures: map[string]bool{}}},
			&slov1alpha1.NodeSLOSpec{SystemStrategy: &slov1alpha1.SystemStrategy{}}, true},
		{"a missing section is a difference",
			&slov1alpha1.NodeSLOSpec{ResourceQOSStrategy: &slov1alpha1.ResourceQOSStrategy{}},
			&slov1alpha1.NodeSLOSpec{}, false},
		{"a different value",
			&slov1alpha1.NodeSLOSpec{
				CPUBurstStrategy: &slov1alpha1.CPUBurstStrategy{SharePoolThresholdPercent: new(int64(1))},
			},
			&slov1alpha1.NodeSLOSpec{
				CPUBurstStrategy: &slov1alpha1.CPUBurstStrategy{SharePoolThresholdPercent: new(int64(2))},
			}, false},
		{"nil and empty spec", nil, &slov1alpha1.NodeSLOSpec{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SpecEqual(tt.a, tt.b); got != tt.equal {
				t.Errorf("SpecEqual = %v, want %v", got, tt.equal)
			}
			if got := SpecEqual(tt.b, tt.a); got != tt.equal {
				t.Errorf("SpecEqual reversed = %v, want %v", got, tt.equal)
			}
		})
	}
	// A resolved spec equals itself after a round trip through the API's JSON.
	spec := Load(nil, nil).Resolve(Node{Name: "n"}, nil).Spec
	var decoded slov1alpha1.NodeSLOSpec
	if err := fromTree(mustTree(t, spec), &decoded); err != nil {
		t.Fatal(err)
	}
	if !SpecEqual(&spec, &decoded) {
		t.Error("a resolved spec differs from itself after a JSON round trip")
	}
}

func mustTree(t *testing.T, v any) any {
	t.Helper()
	tree, err := toTree(v)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}
