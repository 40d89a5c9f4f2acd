package chart

import (
	"flag"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/nodeslo/nodeslo-controller/internal/manager"
)

// Kinds the tests look at by name.
const (
	kindCRD               = "CustomResourceDefinition"
	kindValidatingWebhook = "ValidatingWebhookConfiguration"
	kindPolicy            = "ValidatingAdmissionPolicy"
	kindPolicyBinding     = "ValidatingAdmissionPolicyBinding"
)

// significant returns the parts of obj that must be the same in the chart and
// in config/: what the object does, not how it is labelled or which tool
// manages it. Kinds not named here are compared by their whole spec (or, with
// none, all but their metadata), so a new kind is compared too.
func significant(obj *unstructured.Unstructured) (map[string]any, error) {
	const spec = "spec"
	content := runtime.DeepCopyJSON(obj.Object)
	switch obj.GetKind() {
	case kindCRD:
		annotations := obj.GetAnnotations()
		// Helm's own policy (keep the CRD on uninstall) is the chart's addition.
		delete(annotations, "helm.sh/resource-policy")
		return map[string]any{"metadata.annotations": toAny(annotations), spec: content[spec]}, nil
	case "ClusterRole", "Role":
		return pick(content, "rules", "aggregationRule"), nil
	case "ClusterRoleBinding", "RoleBinding":
		return pick(content, "roleRef", "subjects"), nil
	case "ServiceAccount":
		return pick(content, "automountServiceAccountToken", "imagePullSecrets", "secrets"), nil
	case "Deployment":
		return deploymentSpec(content)
	case kindValidatingWebhook, "MutatingWebhookConfiguration":
		const injectCA = "cert-manager.io/inject-ca-from"
		return map[string]any{
			"webhooks":                               content["webhooks"],
			"metadata.annotations[" + injectCA + "]": obj.GetAnnotations()[injectCA],
		}, nil
	}
	if value, ok := content[spec]; ok {
		return map[string]any{spec: value}, nil
	}
	delete(content, "metadata")
	return content, nil
}

// deploymentSpec is a Deployment's spec without the image (the chart's is a
// value) and with the manager's arguments replaced by the value of every flag
// they set (see managerFlags), so that the order of the arguments and flags
// given their default value do not count, but any effective difference does.
// Of the pod labels, those the selector uses count.
func deploymentSpec(content map[string]any) (map[string]any, error) {
	spec, _, _ := unstructured.NestedMap(content, "spec")
	selector, _, _ := unstructured.NestedStringMap(spec, "selector", "matchLabels")
	labels, _, _ := unstructured.NestedStringMap(spec, "template", "metadata", "labels")
	selected := map[string]any{}
	for key := range selector {
		selected[key] = labels[key]
	}
	if err := unstructured.SetNestedMap(spec, selected, "template", "metadata", "labels"); err != nil {
		return nil, err
	}
	containers, _, _ := unstructured.NestedSlice(spec, "template", "spec", "containers")
	for i, c := range containers {
		container := c.(map[string]any)
		delete(container, "image")
		delete(container, "imagePullPolicy")
		if container["name"] != "manager" {
			continue
		}
		args, _, _ := unstructured.NestedStringSlice(container, "args")
		flags, err := managerFlags(args)
		if err != nil {
			return nil, fmt.Errorf("containers[%d].args: %w", i, err)
		}
		delete(container, "args")
		container["args (every flag's value)"] = flags
	}
	if err := unstructured.SetNestedSlice(spec, containers, "template", "spec", "containers"); err != nil {
		return nil, err
	}
	return map[string]any{"spec": spec}, nil
}

// managerFlags parses args with bin/manager's own flags (those cmd/ binds)
// and returns the value of every flag, set or default. An argument the
// manager does not know is an error: the pod would crash on it.
func managerFlags(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	opts := manager.DefaultOptions()
	opts.BindFlags(fs)
	zapOpts := zap.Options{}
	zapOpts.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("bin/manager rejects %q: %w", args, err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("bin/manager takes no positional arguments, got %q", fs.Args())
	}
	values := map[string]any{}
	fs.VisitAll(func(f *flag.Flag) { values["--"+f.Name] = f.Value.String() })
	return values, nil
}

// pick returns the given top-level fields of content that are set.
func pick(content map[string]any, fields ...string) map[string]any {
	out := map[string]any{}
	for _, field := range fields {
		if value, ok := content[field]; ok {
			out[field] = value
		}
	}
	return out
}

// toAny turns a string map into the map[string]any of unstructured content.
func toAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
