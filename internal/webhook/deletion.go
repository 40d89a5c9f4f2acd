package webhook

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
// ConfigMap is admitted. The deletion policy (config/policy) makes the
// same check in the apiserver, which holds while the manager is down and
// answers before this webhook is called; this check counts the nodes, and
// guards where the policy is left out.
func (v *ConfigMapValidator) ValidateDelete(ctx context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
	if !v.isConfig(ctx, cm) {
		return nil, nil
	}
	return nil, v.resetGuard(ctx, deleting, cm)
}

// emptying reports whether an update takes every one of sloconfig.Keys out
// of data (data: {}, or the keys moved to binaryData, which is not read):
// like a deletion, it resets every node to the defaults.
func emptying(old, cm *corev1.ConfigMap) bool {
	return sloconfig.HoldsAnyKey(old.Data) && !sloconfig.HoldsAnyKey(cm.Data)
}

// reset is a request that resets every node to the defaults, as its
// denial names it.
type reset struct {
	// request says what the request is, of ConfigMap %s.
	request string
	// verb is what "To VERB it anyway" asks for; noun what "only "true"
	// allows the NOUN" names.
	verb, noun string
}

var (
	deleting = reset{request: "deleting ConfigMap %s", verb: "delete", noun: "deletion"}
	// The denial names the keys: they are what data must keep.
	emptyingData = reset{request: "emptying ConfigMap %s (this update leaves none of " +
		strings.Join(keyNames(), ", ") + " in data; binaryData is not read)", verb: "empty", noun: "update"}
)

// keyNames lists sloconfig.Keys as strings.
func keyNames() []string {
	names := make([]string, len(sloconfig.Keys))
	for i, k := range sloconfig.Keys {
		names[i] = string(k)
	}
	return names
}

// resetGuard allows r when one of objects (the stored ConfigMap, and for an
// update the new one) carries sloconfig.AllowDeleteAnnotation: "true", and
// otherwise denies it, counting the nodes it would reset. The first object
// annotated with another value is the one the denial quotes.
func (v *ConfigMapValidator) resetGuard(ctx context.Context, r reset, objects ...*corev1.ConfigMap) error {
	value, annotated := "", false
	for _, cm := range objects {
		got, ok := cm.Annotations[sloconfig.AllowDeleteAnnotation]
		if got == allowDeleteValue {
			return nil
		}
		if ok && !annotated {
			value, annotated = got, true
		}
	}
	items, err := listLiveNodes(ctx, v.Nodes)
	return resetDenial(r, v.Key, len(items), err, value, annotated)
}

// resetDenial is the answer to a reset without the annotation: a Forbidden
// status that says what the request would do, to how many nodes (listErr
// when they could not be counted), and the command that allows it. value
// is the annotation's value when it is set to something else.
func resetDenial(r reset, key types.NamespacedName, nodes int, listErr error, value string, annotated bool) error {
	var what string
	switch {
	case listErr != nil:
		what = fmt.Sprintf("every node's NodeSLO to the defaults (the nodes could not be counted: %v)", listErr)
	case nodes == 0:
		what = "every node's NodeSLO to the defaults (there is no node now)"
	case nodes == 1:
		what = "the NodeSLO of the one node to the defaults"
	default:
		what = fmt.Sprintf("the NodeSLOs of all %d nodes to the defaults", nodes)
	}
	msg := fmt.Sprintf("%s would reset %s. To %s it anyway, first run: "+
		"kubectl annotate configmap %s -n %s %s=%s --overwrite",
		fmt.Sprintf(r.request, key), what, r.verb, key.Name, key.Namespace, sloconfig.AllowDeleteAnnotation, allowDeleteValue)
	if annotated {
		msg += fmt.Sprintf(" (its %s is %q; only %q allows the %s)",
			sloconfig.AllowDeleteAnnotation, sloconfig.Truncate(value, 100), allowDeleteValue, r.noun)
	}
	return apierrors.NewForbidden(corev1.Resource("configmaps"), key.Name, errors.New(msg))
}
