package plugin

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// The kinds of the objects -o name names (docs/kubectl-nodeslo.md#machine-readable-output):
// what each command reports on.
var (
	nodeKind               = corev1.SchemeGroupVersion.WithKind("Node").GroupKind()
	configMapKind          = corev1.SchemeGroupVersion.WithKind("ConfigMap").GroupKind()
	nodeSLOKind            = slov1alpha1.GroupVersion.WithKind("NodeSLO").GroupKind()
	nodeSLORolloutKind     = nodeslov1alpha1.GroupVersion.WithKind("NodeSLORollout").GroupKind()
	controllerRevisionKind = appsv1.SchemeGroupVersion.WithKind("ControllerRevision").GroupKind()
)

// listItems is the field of a List, and of explain's list, that holds its
// objects: custom-columns' rows.
const listItems = "items"

// objectName is an object as -o name prints it, kubectl's kind.group/name
// ("node/worker-1", "nodeslo.slo.koordinator.sh/worker-1").
func objectName(kind schema.GroupKind, name string) string {
	return strings.ToLower(kind.String()) + "/" + name
}
