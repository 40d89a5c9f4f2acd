package plugin

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
)

// A ConfigMap a GitOps tool syncs from Git gets Git's data back at the
// tool's next sync or self-heal: an undo written into it does not last,
// and the revert belongs in Git (docs/kubectl-nodeslo.md#undo-under-gitops).

// The field managers of the GitOps tools' writes, and the metadata they
// mark the objects they sync with.
const (
	argoTrackingAnnotation = "argocd.argoproj.io/tracking-id"
	argoInstanceLabel      = "app.kubernetes.io/instance"
	fluxKustomizationLabel = "kustomize.toolkit.fluxcd.io/name"
	fluxHelmReleaseLabel   = "helm.toolkit.fluxcd.io/name"
)

// gitOpsManagers are the field managers of Argo CD's and Flux's writes.
var gitOpsManagers = map[string]string{
	"argocd-controller":             "Argo CD",
	"argocd-application-controller": "Argo CD",
	"kustomize-controller":          "Flux",
	"helm-controller":               "Flux",
}

// gitOpsOwner names the GitOps tool that syncs cm and how that shows
// ("Argo CD (field manager argocd-controller)"); "" when nothing shows one:
// a field manager of Argo CD or Flux in its managedFields, Argo CD's
// tracking annotation (with its instance label or without), or the label
// Flux's kustomize-controller or helm-controller puts on what it applies.
// Argo CD's instance label alone is not taken for it: Helm charts set it
// too.
func gitOpsOwner(cm *corev1.ConfigMap) string {
	for _, f := range cm.ManagedFields {
		if tool, ok := gitOpsManagers[f.Manager]; ok {
			return fmt.Sprintf("%s (field manager %s)", tool, f.Manager)
		}
	}
	if _, ok := cm.Annotations[argoTrackingAnnotation]; ok {
		if instance, ok := cm.Labels[argoInstanceLabel]; ok {
			return fmt.Sprintf("Argo CD (annotation %s, label %s=%s)", argoTrackingAnnotation, argoInstanceLabel, instance)
		}
		return fmt.Sprintf("Argo CD (annotation %s)", argoTrackingAnnotation)
	}
	for _, label := range []string{fluxKustomizationLabel, fluxHelmReleaseLabel} {
		if name, ok := cm.Labels[label]; ok {
			return fmt.Sprintf("Flux (label %s=%s)", label, name)
		}
	}
	return ""
}

// writeManifest prints the ConfigMap of ref with data as YAML to commit to
// Git, after a comment line saying what it is: its name, namespace and
// data, nothing the cluster adds, the keys as written by hand (apiVersion,
// kind, metadata, data) and each value of several lines as a literal block,
// as such JSON documents are kept in Git.
func writeManifest(w io.Writer, ref ConfigMapRef, data map[string]string, comment string) error {
	str := func(v string) *yaml.Node {
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
		if strings.Contains(v, "\n") {
			n.Style = yaml.LiteralStyle
		}
		return n
	}
	mapping := func(pairs ...*yaml.Node) *yaml.Node {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: pairs}
	}
	values := make([]*yaml.Node, 0, 2*len(data))
	for _, k := range slices.Sorted(maps.Keys(data)) {
		values = append(values, str(k), str(data[k]))
	}
	doc := mapping(str("apiVersion"), str("v1"), str("kind"), str("ConfigMap"),
		str("metadata"), mapping(str("name"), str(ref.Name), str("namespace"), str(ref.Namespace)),
		str("data"), mapping(values...))
	doc.HeadComment = comment
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("printing ConfigMap %s: %w", ref, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("printing ConfigMap %s: %w", ref, err)
	}
	_, err := w.Write(b.Bytes())
	return err
}
