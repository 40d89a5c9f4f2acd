package webhook

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/nodeslo/nodeslo-controller/internal/crdprobe"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Path is where the webhook server serves the validator; it is the path
// controller-runtime derives for a validator of core/v1 ConfigMaps.
const Path = "/validate--v1-configmap"

// The marker below generates config/webhook/manifests.yaml. The patch scopes
// the webhook to the one ConfigMap, so that no other ConfigMap of the cluster
// waits for it: the namespace selector lets the apiserver skip every other
// namespace without evaluating anything, and the match condition every other
// name (object is null on DELETE: the condition reads oldObject then). A
// deployment that changes --config-namespace or --slo-config-name must change
// both, as it must move the ConfigMap Role.
//
// failurePolicy=ignore with a 5 s timeout: when the manager is down, writes
// go through unchecked and the controller still rejects a bad value, keeping
// the last good one; a deletion goes through too (docs/behaviour.md,
// "Deleting the ConfigMap").
//
// +kubebuilder:webhook:path=/validate--v1-configmap,mutating=false,failurePolicy=ignore,sideEffects=None,groups="",resources=configmaps,verbs=create;update;delete,versions=v1,name=slo-controller-config.nodeslo.koordinator.sh,admissionReviewVersions=v1,timeoutSeconds=5,patch=`{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"koordinator-system"}},"matchConditions":[{"name":"is-slo-controller-config","expression":"(object != null ? object : oldObject).metadata.name == 'slo-controller-config'"}]}`

// ConfigMapValidator checks the configured ConfigMap as the config-cache
// controller loads it at start-up (no last good value to fall back on), and
// guards it against deletion.
type ConfigMapValidator struct {
	// Key is the configured ConfigMap; any other is admitted unchecked.
	Key types.NamespacedName
	// Nodes lists Node metadata (the manager's cache), for the warnings
	// about node strategies that overlap on live nodes or match none, and
	// for the number of nodes a deletion would reset.
	Nodes client.Reader
	// Writer dry-runs one NodeSLO holding every field the ConfigMap sets,
	// to warn of those the installed CRD would drop
	// (docs/behaviour.md#crd-version-skew); nil: no such check.
	Writer client.Client
}

var _ admission.Validator[*corev1.ConfigMap] = &ConfigMapValidator{}

// ValidateCreate checks a new ConfigMap.
func (v *ConfigMapValidator) ValidateCreate(ctx context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
	if !v.isConfig(ctx, cm) {
		return nil, nil
	}
	return v.check(ctx, cm)
}

// ValidateUpdate checks the new value of a ConfigMap. An update that leaves
// data and binaryData as they are stored (an annotation, the controller's
// own rollout record) is admitted at once, without loading anything, even
// when they are invalid (they got in with the webhook down): refusing a
// change of metadata only would protect nothing, and would block the
// annotation that allows deleting the ConfigMap. An update that takes
// every key out of data resets every node as a deletion does, and needs
// the same annotation.
func (v *ConfigMapValidator) ValidateUpdate(
	ctx context.Context, old, cm *corev1.ConfigMap,
) (admission.Warnings, error) {
	if !v.isConfig(ctx, cm) || sameData(old, cm) {
		return nil, nil
	}
	if emptying(old, cm) {
		if err := v.resetGuard(ctx, emptyingData, cm, old); err != nil {
			return nil, err
		}
	}
	return v.check(ctx, cm)
}

// check loads cm's data as the controller would and denies it with every
// error line, or admits it with every warning.
func (v *ConfigMapValidator) check(ctx context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
	warnings, errs := v.validate(ctx, cm)
	if len(errs) > 0 {
		return warnings, rejection(v.Key, errs)
	}
	return warnings, nil
}

// validate loads cm's data as the controller would and returns every
// warning and every error line. The errors come from the data alone, whose
// size the apiserver bounds, so they are always found. Only a value without
// errors is checked against the cluster (live nodes, the installed CRD),
// within ctx's deadline (deadline.go): a check cut short is named in a
// warning, and the value admitted.
func (v *ConfigMapValidator) validate(ctx context.Context, cm *corev1.ConfigMap) (warnings, errs []string) {
	data := cm.Data
	if data == nil {
		data = map[string]string{}
	}
	cfg := sloconfig.Load(data, nil)
	errs, keyWarnings := sloconfig.ReportLines(cfg, rollout.RetiredKeyLines(data))
	warnings = sloconfig.DataKeyWarningLines(cm.Data, cm.BinaryData)
	warnings = append(warnings, keyWarnings...)
	if len(errs) > 0 {
		return warnings, errs
	}
	warnings = append(warnings, liveNodeWarnings(ctx, v.Nodes, cfg)...)
	return append(warnings, v.droppedWarnings(ctx, cfg)...), nil
}

// sameData reports whether an update leaves data and binaryData as stored:
// all that validation reads.
func sameData(old, cm *corev1.ConfigMap) bool {
	return maps.Equal(old.Data, cm.Data) && maps.EqualFunc(old.BinaryData, cm.BinaryData, bytes.Equal)
}

// plural picks the singular or the plural noun for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// droppedWarnings warns of the fields cfg sets that the installed NodeSLO
// CRD would drop, found by one server-side dry run with the manager's own
// permission to create NodeSLOs. A dry run that fails says nothing (the
// controller still reports dropped fields when it writes), but one that
// ctx's deadline cut short is named.
func (v *ConfigMapValidator) droppedWarnings(ctx context.Context, cfg *sloconfig.Config) []string {
	if v.Writer == nil {
		return nil
	}
	dropped, err := crdprobe.ConfigDropped(ctx, v.Writer, cfg)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return []string{cutShort("the ConfigMap was not checked against the installed NodeSLO CRD", ctxErr)}
		}
		logf.FromContext(ctx).Info("Cannot check the ConfigMap against the installed NodeSLO CRD", "error", err.Error())
		return nil
	}
	return sloconfig.DroppedFieldWarnings(dropped)
}

// isConfig reports whether cm is the configured ConfigMap. The request's
// namespace and name are used when known: the object of a create may not
// carry its namespace yet.
func (v *ConfigMapValidator) isConfig(ctx context.Context, cm *corev1.ConfigMap) bool {
	namespace, name := cm.Namespace, cm.Name
	if req, err := admission.RequestFromContext(ctx); err == nil {
		if req.Namespace != "" {
			namespace = req.Namespace
		}
		if req.Name != "" {
			name = req.Name
		}
	}
	return namespace == v.Key.Namespace && name == v.Key.Name
}

// rejection is the denial: an Invalid status whose message lists every
// error as `kubectl nodeslo validate` prints it, one per line, with one
// cause per error. A cause's field is the ConfigMap key and its message
// starts with the JSON path inside the key's document: kubectl prints an
// Invalid error's causes as "FIELD: MESSAGE", which is then exactly the
// line validate prints.
func rejection(key types.NamespacedName, lines []string) error {
	causes := make([]metav1.StatusCause, 0, len(lines))
	for _, line := range lines {
		dataKey, rest, _ := strings.Cut(line, ": ")
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: dataKey, Message: rest})
	}
	msg := fmt.Sprintf("ConfigMap %s is invalid (%d %s; `kubectl nodeslo validate` prints the same):\n%s",
		key, len(lines), plural(len(lines), "error", "errors"), strings.Join(lines, "\n"))
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnprocessableEntity,
		Reason:  metav1.StatusReasonInvalid,
		Message: msg,
		Details: &metav1.StatusDetails{Name: key.Name, Kind: "ConfigMap", Causes: causes},
	}}
}
