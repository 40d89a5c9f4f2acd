package webhook

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// allowDeleteValue is the one value of sloconfig.AllowDeleteAnnotation that
// allows the deletion: an explicit, exact word, as for any safety catch.
const allowDeleteValue = "true"

// ValidateDelete refuses to delete the configured ConfigMap unless it
// carries sloconfig.AllowDeleteAnnotation: "true". Without the ConfigMap
// every node is reset to the defaults, which is rarely what a `kubectl
// delete` meant (docs/behaviour.md, "Deleting the ConfigMap"). Any other
// ConfigMap is admitted.
func (v *ConfigMapValidator) ValidateDelete(ctx context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
	if !v.isConfig(ctx, cm) {
		return nil, nil
	}
	value, annotated := cm.Annotations[sloconfig.AllowDeleteAnnotation]
	if value == allowDeleteValue {
		return nil, nil
	}
	items, err := listLiveNodes(ctx, v.Nodes)
	return nil, deletionDenial(v.Key, len(items), err, value, annotated)
}

// deletionDenial is the answer to a deletion without the annotation: a
// Forbidden status that says what the deletion would do, to how many nodes
// (listErr when they could not be counted), and the command that allows it.
// value is the annotation's value when it is set to something else.
func deletionDenial(key types.NamespacedName, nodes int, listErr error, value string, annotated bool) error {
	var reset string
	switch {
	case listErr != nil:
		reset = fmt.Sprintf("every node's NodeSLO to the defaults (the nodes could not be counted: %v)", listErr)
	case nodes == 0:
		reset = "every node's NodeSLO to the defaults (there is no node now)"
	case nodes == 1:
		reset = "the NodeSLO of the one node to the defaults"
	default:
		reset = fmt.Sprintf("the NodeSLOs of all %d nodes to the defaults", nodes)
	}
	msg := fmt.Sprintf("deleting ConfigMap %s would reset %s. To delete it anyway, first run: "+
		"kubectl annotate configmap %s -n %s %s=%s --overwrite",
		key, reset, key.Name, key.Namespace, sloconfig.AllowDeleteAnnotation, allowDeleteValue)
	if annotated {
		msg += fmt.Sprintf(" (its %s is %q; only %q allows the deletion)",
			sloconfig.AllowDeleteAnnotation, sloconfig.Truncate(value, 100), allowDeleteValue)
	}
	return apierrors.NewForbidden(corev1.Resource("configmaps"), key.Name, errors.New(msg))
}
