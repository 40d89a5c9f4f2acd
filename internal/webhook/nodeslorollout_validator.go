package webhook

import (
	"context"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// RolloutPath is where the webhook server serves the NodeSLORollout
// validator (the path controller-runtime derives for it).
const RolloutPath = "/validate-nodeslo-koordinator-sh-v1alpha1-nodeslorollout"

// failurePolicy=ignore: the schema's rules hold without the manager; what
// only the manager knows (the hosts and credentials its flags allow a
// metric check) is checked again by the controller, which holds every
// rollout under a strategy it refuses (docs/rollout.md#the-strategy).
// Scoped like the ConfigMap's: the controller reads one NodeSLORollout, of
// the ConfigMap's namespace and name, and the webhook sees no other.
//
// +kubebuilder:webhook:path=/validate-nodeslo-koordinator-sh-v1alpha1-nodeslorollout,mutating=false,failurePolicy=ignore,sideEffects=None,groups=nodeslo.koordinator.sh,resources=nodeslorollouts,verbs=create;update,versions=v1alpha1,name=nodeslorollout.nodeslo.koordinator.sh,admissionReviewVersions=v1,timeoutSeconds=5,patch=`{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"koordinator-system"}},"matchConditions":[{"name":"is-slo-controller-config","expression":"object.metadata.name == 'slo-controller-config'"}]}`

// RolloutValidator checks a NodeSLORollout's spec.strategy as the
// controller compiles it: what the schema cannot say (label selectors,
// query templates, addresses) and what the manager's flags allow.
type RolloutValidator struct {
	// Limits reads what the manager allows a metric check (its flags, and
	// its credentials directory as it is at each review); nil: not known.
	Limits func() rollout.Limits
}

var _ admission.Validator[*nodeslov1alpha1.NodeSLORollout] = &RolloutValidator{}

// ValidateCreate checks a new NodeSLORollout.
func (v *RolloutValidator) ValidateCreate(
	_ context.Context, obj *nodeslov1alpha1.NodeSLORollout,
) (admission.Warnings, error) {
	return v.check(obj)
}

// ValidateUpdate checks a NodeSLORollout's new spec. A spec left as it
// was (a status write, a label) is admitted unchecked: refusing it would
// protect nothing.
func (v *RolloutValidator) ValidateUpdate(
	_ context.Context, old, obj *nodeslov1alpha1.NodeSLORollout,
) (admission.Warnings, error) {
	if old.Generation == obj.Generation && old.Generation != 0 {
		return nil, nil
	}
	return v.check(obj)
}

// ValidateDelete admits every deletion: without a NodeSLORollout every
// change reaches every node at once, which is the operator's to choose.
func (v *RolloutValidator) ValidateDelete(
	context.Context, *nodeslov1alpha1.NodeSLORollout,
) (admission.Warnings, error) {
	return nil, nil
}

// check compiles the strategy and refuses it with every error, each with
// its field path, or admits it with every warning.
func (v *RolloutValidator) check(obj *nodeslov1alpha1.NodeSLORollout) (admission.Warnings, error) {
	var limits *rollout.Limits
	if v.Limits != nil {
		l := v.Limits()
		limits = &l
	}
	key := rollout.LoadStrategy(&obj.Spec, limits)
	warnings := key.WarningMessages()
	if key.Valid() {
		return warnings, nil
	}
	causes := make(field.ErrorList, 0, len(key.Errors))
	for _, e := range key.Errors {
		moved := *e
		moved.Field = "spec.strategy" + fieldSuffix(e.Field)
		causes = append(causes, &moved)
	}
	gk := schema.GroupKind{Group: nodeslov1alpha1.GroupVersion.Group, Kind: "NodeSLORollout"}
	return warnings, apierrors.NewInvalid(gk, obj.Name, causes)
}

// fieldSuffix is a path below spec.strategy as its suffix.
func fieldSuffix(p string) string {
	if p == "" || strings.HasPrefix(p, "[") {
		return p
	}
	return "." + p
}
