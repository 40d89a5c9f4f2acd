package sloconfig

import (
	"k8s.io/apimachinery/pkg/api/equality"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// specEqual compares with apimachinery's semantic equality: quantities by
// value (1000M equals 1G), and nil equal to empty for maps and lists (so
// extensions {"Object":{}} equals an Object map that decoded as nil). A nil
// spec equals an empty one.
func specEqual(a, b *slov1alpha1.NodeSLOSpec) bool {
	if a == nil {
		a = &slov1alpha1.NodeSLOSpec{}
	}
	if b == nil {
		b = &slov1alpha1.NodeSLOSpec{}
	}
	return equality.Semantic.DeepEqual(a, b)
}
