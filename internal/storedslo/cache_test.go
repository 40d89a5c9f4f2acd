package storedslo

import (
	"maps"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

func TestCacheTransformLeavesTombstonesAlone(t *testing.T) {
	tomb := toolscache.DeletedFinalStateUnknown{Key: "n1"}
	out, err := CacheTransform()(tomb)
	if err != nil || out != tomb {
		t.Errorf("got %v, %v", out, err)
	}
}

// sloMetadata is a NodeSLO as the metadata-only watch decodes it.
func sloMetadata(name string) *metav1.PartialObjectMetadata {
	slo := sloconfig.NodeSLOMetadata()
	slo.Name = name
	slo.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m"}}
	return slo
}

// The apiVersion and kind a decoder allocates for every NodeSLO are
// replaced by one shared copy, with their values unchanged; managedFields go.
func TestShareNodeSLOMetadataSharesTypeMeta(t *testing.T) {
	transform := CacheTransform()
	slo := sloMetadata("a")
	// Built from pieces, as a decoder builds them: a string of its own.
	slo.APIVersion = strings.Join([]string{slov1alpha1.GroupVersion.Group, slov1alpha1.GroupVersion.Version}, "/")
	slo.Kind = strings.Clone("NodeSLO")
	if _, err := transform(slo); err != nil {
		t.Fatal(err)
	}
	if slo.APIVersion != "slo.koordinator.sh/v1alpha1" || slo.Kind != "NodeSLO" {
		t.Fatalf("TypeMeta changed to %q %q", slo.APIVersion, slo.Kind)
	}
	if unsafe.StringData(slo.APIVersion) != unsafe.StringData(apiVersion) ||
		unsafe.StringData(slo.Kind) != unsafe.StringData(kind) {
		t.Error("apiVersion and kind are not the shared copies")
	}
	if slo.ManagedFields != nil {
		t.Error("managedFields kept")
	}
}

// Equal annotations (the time of the controller's write, the same for the
// nodes of one step, and the digest of the spec written) are one shared
// map; different ones are not.
func TestShareNodeSLOMetadataSharesAnnotations(t *testing.T) {
	transform := CacheTransform()
	stamp := func(name, at string) *metav1.PartialObjectMetadata {
		slo := sloMetadata(name)
		slo.Annotations = map[string]string{
			"nodeslo.koordinator.sh/spec-written-at": at, SpecDigestAnnotation: "1/d"}
		if _, err := transform(slo); err != nil {
			t.Fatal(err)
		}
		return slo
	}
	const second, next = "2026-12-01T14:00:00Z", "2026-12-01T14:00:01Z"
	a, b, c := stamp("a", second), stamp("b", second), stamp("c", next)
	if !maps.Equal(a.Annotations, map[string]string{
		"nodeslo.koordinator.sh/spec-written-at": second, SpecDigestAnnotation: "1/d"}) {
		t.Fatalf("annotations changed: %v", a.Annotations)
	}
	same := func(x, y map[string]string) bool {
		return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	}
	if !same(a.Annotations, b.Annotations) {
		t.Error("equal annotations are not one map")
	}
	if same(a.Annotations, c.Annotations) || c.Annotations["nodeslo.koordinator.sh/spec-written-at"] != next {
		t.Error("different annotations are shared")
	}
}
