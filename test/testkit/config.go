package testkit

import (
	"context"

	. "github.com/onsi/ginkgo/v2" //nolint:staticcheck // the kit is Ginkgo's, like the suites that use it
	. "github.com/onsi/gomega"    //nolint:staticcheck // the kit is Gomega's, like the suites that use it
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// SetConfig makes the ConfigMap key hold data: created when missing,
// otherwise its data replaced and its metadata kept. The replacement is
// retried on a conflict: the controller never writes the ConfigMap, but a
// spec may (an apply by another field manager, say). The rollout policy
// in data (SplitPolicy) goes to the NodeSLORollout of the same name
// first, so that the change rolls out under it (SetStrategy). It returns
// the ConfigMap as written and whether it was created (the caller decides
// whether a spec's cleanup deletes it).
func SetConfig(
	ctx context.Context, c client.Client, key client.ObjectKey, data map[string]string,
) (*corev1.ConfigMap, bool) {
	GinkgoHelper()
	data, policy := SplitPolicy(data)
	SetStrategy(ctx, c, key, policy)
	return WriteConfigMap(ctx, c, key, data)
}

// WriteConfigMap is SetConfig without the strategy: data, the retired
// rollout key included if it is there, goes into the ConfigMap as it is.
func WriteConfigMap(
	ctx context.Context, c client.Client, key client.ObjectKey, data map[string]string,
) (*corev1.ConfigMap, bool) {
	GinkgoHelper()
	cm := &corev1.ConfigMap{}
	created := false
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		err := c.Get(ctx, key, cm)
		if apierrors.IsNotFound(err) {
			cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}, Data: data}
			created = true
			return c.Create(ctx, cm)
		}
		if err != nil {
			return err
		}
		cm.Data = data
		return c.Update(ctx, cm)
	})).To(Succeed(), "setting ConfigMap %s", key)
	return cm, created
}

// DeleteConfig deletes the ConfigMap key as an operator must where the
// deletion policy or the webhook guards it: annotated with
// sloconfig.AllowDeleteAnnotation: "true" first
// (docs/behaviour.md#deleting-the-configmap). A ConfigMap already gone is
// not an error.
func DeleteConfig(ctx context.Context, c client.Client, key client.ObjectKey) {
	GinkgoHelper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	patch := client.RawPatch(types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"`+sloconfig.AllowDeleteAnnotation+`":"true"}}}`))
	Expect(client.IgnoreNotFound(c.Patch(ctx, cm, patch))).To(Succeed(), "annotating ConfigMap %s for deletion", key)
	Expect(client.IgnoreNotFound(c.Delete(ctx, cm))).To(Succeed(), "deleting ConfigMap %s", key)
}
