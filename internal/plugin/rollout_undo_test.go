package plugin

import (
	"bytes"
	"context"
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/yaml"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// undoFixture is the ConfigMap of statusData(40) with meta's labels,
// annotations and managedFields, and a history of two revisions: 50, then
// 40 in force. The fake client keeps no managedFields of its own objects:
// its reads of the ConfigMap are given meta's, as the apiserver's would.
func undoFixture(t *testing.T, meta metav1.ObjectMeta) (client.Client, *corev1.ConfigMap, rollout.Revision) {
	t.Helper()
	meta.Namespace, meta.Name = statusRef.Namespace, statusRef.Name
	managed := meta.ManagedFields
	meta.ManagedFields = nil
	cm := &corev1.ConfigMap{ObjectMeta: meta, Data: statusData(40, false)}
	first, second := keptRevision(1, statusData(50, false)), keptRevision(2, statusData(40, false))
	c := fake.NewClientBuilder().WithScheme(scheme.New()).
		WithObjects(cm, first.Object(statusKey), second.Object(statusKey)).
		WithInterceptorFuncs(interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey,
			obj client.Object, opts ...client.GetOption) error {
			err := c.Get(ctx, key, obj, opts...)
			if _, ok := obj.(*corev1.ConfigMap); ok && err == nil {
				obj.SetManagedFields(managed)
			}
			return err
		}}).Build()
	return c, readConfigMap(t, c, statusRef), first
}

// managedBy is metadata whose managedFields name manager as the owner of
// the data, after the kubectl that created the ConfigMap.
// release is the name of an Argo CD Application, or of a Helm release.
const release = "slo"

func managedBy(manager string) metav1.ObjectMeta {
	entry := func(manager string, op metav1.ManagedFieldsOperationType) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "v1", FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(`{"f:data":{}}`)}
	}
	return metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{
		entry("kubectl-create", metav1.ManagedFieldsOperationUpdate), entry(manager, metav1.ManagedFieldsOperationApply)}}
}

// An undo of a ConfigMap that Argo CD or Flux syncs from Git writes
// nothing: it prints the revision's data as the ConfigMap to commit to
// Git, and fails saying why.
func TestUndoUnderGitOpsPrintsTheConfigMapToCommit(t *testing.T) {
	for name, tc := range map[string]struct {
		meta metav1.ObjectMeta
		by   string
	}{
		"argocd-controller":             {managedBy("argocd-controller"), "Argo CD (field manager argocd-controller)"},
		"argocd-application-controller": {managedBy("argocd-application-controller"), "Argo CD (field manager"},
		"kustomize-controller":          {managedBy("kustomize-controller"), "Flux (field manager kustomize-controller)"},
		"helm-controller":               {managedBy("helm-controller"), "Flux (field manager helm-controller)"},
		"Argo CD's instance label and tracking annotation": {metav1.ObjectMeta{
			Labels:      map[string]string{argoInstanceLabel: release},
			Annotations: map[string]string{argoTrackingAnnotation: "slo:/ConfigMap:koordinator-system/slo-controller-config"},
		}, "Argo CD (annotation argocd.argoproj.io/tracking-id, label app.kubernetes.io/instance=" + release + ")"},
		"Argo CD's tracking annotation": {metav1.ObjectMeta{
			Annotations: map[string]string{argoTrackingAnnotation: "slo:/ConfigMap:koordinator-system/slo-controller-config"},
		}, "Argo CD (annotation argocd.argoproj.io/tracking-id)"},
		"Flux's Kustomization label": {metav1.ObjectMeta{Labels: map[string]string{fluxKustomizationLabel: "infra"}},
			"Flux (label kustomize.toolkit.fluxcd.io/name=infra)"},
		"Flux's HelmRelease label": {metav1.ObjectMeta{Labels: map[string]string{fluxHelmReleaseLabel: release}},
			"Flux (label helm.toolkit.fluxcd.io/name=" + release + ")"},
	} {
		t.Run(name, func(t *testing.T) {
			c, before, to := undoFixture(t, tc.meta)
			var out, errOut bytes.Buffer
			err := RunUndo(context.Background(), c, statusRef, UndoOptions{DryRun: DryRunNone}, &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), "ConfigMap koordinator-system/slo-controller-config is synced "+
				"from Git by "+tc.by) || !strings.Contains(err.Error(), "the undo belongs in Git; commit the data of "+
				"revision 1 (the ConfigMap printed above), or write it into the ConfigMap anyway with --force; nothing written") {
				t.Errorf("error %v", err)
			}
			if after := readConfigMap(t, c, statusRef); after.ResourceVersion != before.ResourceVersion {
				t.Errorf("the ConfigMap was written: %+v", after)
			}
			const comment = "# ConfigMap koordinator-system/slo-controller-config with the data of revision 1: " +
				"commit it to Git\napiVersion: v1\nkind: ConfigMap\nmetadata:\n" +
				"  name: slo-controller-config\n  namespace: koordinator-system\ndata:\n  nodeslo-rollout-config: |-\n"
			if !strings.HasPrefix(out.String(), comment) {
				t.Fatalf("output:\n%s", out.String())
			}
			var printed corev1.ConfigMap
			if err := yaml.UnmarshalStrict(out.Bytes(), &printed); err != nil {
				t.Fatal(err)
			}
			want := rollout.UndoData(before.Data, to)
			if printed.Kind != "ConfigMap" || printed.Name != statusRef.Name || printed.Namespace != statusRef.Namespace ||
				!maps.Equal(printed.Data, want) || len(printed.Labels)+len(printed.Annotations) != 0 {
				t.Errorf("printed %+v, want the data %v", printed, want)
			}
		})
	}
}

// --force writes it all the same, with a warning; a dry run goes on as
// always, with the warning. Argo CD's instance label alone (Helm sets it
// too) and other field managers are no GitOps tool.
func TestUndoUnderGitOpsWithForceOrADryRun(t *testing.T) {
	c, before, to := undoFixture(t, managedBy("argocd-controller"))
	var out, errOut bytes.Buffer
	err := RunUndo(context.Background(), c, statusRef, UndoOptions{DryRun: DryRunNone, Force: true}, &out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	if got := readConfigMap(t, c, statusRef).Data; !maps.Equal(got, rollout.UndoData(before.Data, to)) {
		t.Errorf("data after --force: %v", got)
	}
	expectLines(t, errOut.String(), "warning: ConfigMap koordinator-system/slo-controller-config is synced from Git by "+
		"Argo CD (field manager argocd-controller): the undo is written (--force)")
	expectLines(t, out.String(), "the data of revision 1 written back")

	c, before, _ = undoFixture(t, managedBy("kustomize-controller"))
	out.Reset()
	errOut.Reset()
	if err := RunUndo(context.Background(), c, statusRef, UndoOptions{DryRun: DryRunClient}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if readConfigMap(t, c, statusRef).ResourceVersion != before.ResourceVersion {
		t.Error("a dry run wrote the ConfigMap")
	}
	expectLines(t, out.String(), "Undo to revision 1 would write keys resource-threshold-config")
	expectLines(t, errOut.String(),
		"synced from Git by Flux (field manager kustomize-controller): the undo belongs in Git")

	for _, meta := range []metav1.ObjectMeta{managedBy("kubectl-client-side-apply"),
		{Labels: map[string]string{argoInstanceLabel: release}}} {
		c, before, to = undoFixture(t, meta)
		errOut.Reset()
		if err := Undo(context.Background(), c, statusRef, 0, DryRunNone, &bytes.Buffer{}, &errOut); err != nil {
			t.Fatal(err)
		}
		if got := readConfigMap(t, c, statusRef).Data; !maps.Equal(got, rollout.UndoData(before.Data, to)) ||
			errOut.Len() != 0 {
			t.Errorf("%+v: data %v, warnings %q", meta, got, errOut.String())
		}
	}
}
