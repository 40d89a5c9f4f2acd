package webhook_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// docs/behaviour.md#deleting-the-configmap.
var _ = Describe("Deleting the ConfigMap", func() {
	key := types.NamespacedName{Namespace: configNamespace, Name: configName}
	annotate := "kubectl annotate configmap " + configName + " -n " + configNamespace + " " +
		sloconfig.AllowDeleteAnnotation + "=true --overwrite"

	It("is denied without the annotation, saying how many nodes it would reset and how to allow it",
		func(ctx SpecContext) {
			Expect(putConfig(ctx, good)).To(Succeed())
			createNodes(ctx, 3, nil)
			cm := &corev1.ConfigMap{}
			Expect(k8sClient.Get(ctx, key, cm)).To(Succeed())

			// The count is the manager's Node cache's, which sees the new
			// nodes shortly after they are created.
			Eventually(func(g Gomega) {
				err := k8sClient.Delete(ctx, cm.DeepCopy())
				g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "not Forbidden: %v", err)
				g.Expect(err.Error()).To(ContainSubstring("denied the request"))
				g.Expect(err.Error()).To(ContainSubstring(fmt.Sprintf(
					"deleting ConfigMap %s would reset the NodeSLOs of all %d nodes to the defaults. "+
						"To delete it anyway, first run: %s", key, nodeCount(ctx), annotate)))
			}).WithContext(ctx).Should(Succeed())
			Expect(k8sClient.Get(ctx, key, &corev1.ConfigMap{})).To(Succeed(), "the ConfigMap is still there")

			By("any value but \"true\" is refused, and named")
			Expect(annotateAllowDelete(ctx, cm, "True")).To(Succeed())
			err := k8sClient.Delete(ctx, cm.DeepCopy())
			Expect(apierrors.IsForbidden(err)).To(BeTrue(), "not Forbidden: %v", err)
			Expect(err.Error()).To(ContainSubstring(
				`(its ` + sloconfig.AllowDeleteAnnotation + ` is "True"; only "true" allows the deletion)`))

			By("with the annotation \"true\", it is deleted")
			Expect(annotateAllowDelete(ctx, cm, "true")).To(Succeed())
			Expect(k8sClient.Delete(ctx, cm)).To(Succeed())
			Expect(k8sClient.Get(ctx, key, &corev1.ConfigMap{})).To(Satisfy(apierrors.IsNotFound))
		})

	It("is denied for a ConfigMap without data too: it is the configuration all the same", func(ctx SpecContext) {
		Expect(putConfig(ctx, nil)).To(Succeed())
		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, key, cm)).To(Succeed())
		err := k8sClient.Delete(ctx, cm)
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "not Forbidden: %v", err)
		Expect(err.Error()).To(ContainSubstring(annotate))
	})
})
