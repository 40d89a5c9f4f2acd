package manager

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The informers of Nodes and NodeSLOs, typed or metadata only, have no
// namespace index; every other kind keeps the indexes it is asked for.
func TestNewInformerDropsTheNamespaceIndexOfTheFleetsKinds(t *testing.T) {
	configMaps := &metav1.PartialObjectMetadata{}
	configMaps.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	for _, tc := range []struct {
		name          string
		obj           runtime.Object
		wantNamespace bool
	}{
		{"Node metadata", sloconfig.NodeMetadata(), false},
		{"NodeSLO metadata", sloconfig.NodeSLOMetadata(), false},
		{"typed Node", &corev1.Node{}, false},
		{"typed NodeSLO", &slov1alpha1.NodeSLO{}, false},
		{"ConfigMap metadata", configMaps, true},
		{"typed ConfigMap", &corev1.ConfigMap{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := toolscache.Indexers{
				toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc,
				"field:spec.nodeName":     toolscache.MetaNamespaceIndexFunc,
			}
			got := newInformer(nil, tc.obj, 0, asked).GetIndexer().GetIndexers()
			if _, has := got[toolscache.NamespaceIndex]; has != tc.wantNamespace {
				t.Fatalf("namespace index kept: %t, want %t", has, tc.wantNamespace)
			}
			if _, has := got["field:spec.nodeName"]; !has {
				t.Fatal("a field index asked for was dropped")
			}
			if _, has := asked[toolscache.NamespaceIndex]; !has {
				t.Fatal("the indexers asked for were changed")
			}
		})
	}
}
