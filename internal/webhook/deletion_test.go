package webhook_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// docs/behaviour.md#deleting-the-configmap: an update that takes every key
// out of data resets every node as a deletion does.
var _ = Describe("Emptying the ConfigMap by an update", func() {
	key := types.NamespacedName{Namespace: configNamespace, Name: configName}
	annotate := "kubectl annotate configmap " + configName + " -n " + configNamespace + " " +
		sloconfig.AllowDeleteAnnotation + "=true --overwrite"
	emptying := "emptying ConfigMap " + key.String() + " (this update leaves none of " +
		"resource-threshold-config, resource-qos-config, cpu-burst-config, system-config, " +
		"host-application-config in data; binaryData is not read) would reset "

	// expectRefused checks that err is the denial of an emptying update and
	// that the stored data is still good.
	expectRefused := func(ctx SpecContext, err error) {
		GinkgoHelper()
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "not Forbidden: %v", err)
		Expect(err.Error()).To(ContainSubstring("denied the request"))
		Expect(err.Error()).To(ContainSubstring(emptying))
		Expect(err.Error()).To(ContainSubstring("To empty it anyway, first run: " + annotate))
		stored := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, key, stored)).To(Succeed())
		Expect(stored.Data).To(Equal(good))
	}

	It("is denied without the annotation for data: {}, and for the keys moved to binaryData", func(ctx SpecContext) {
		Expect(putConfig(ctx, good)).To(Succeed())
		expectRefused(ctx, putConfig(ctx, map[string]string{}))

		binary := map[string][]byte{}
		for k, v := range good {
			binary[k] = []byte(v)
		}
		expectRefused(ctx, putConfigMap(ctx, configNamespace, configName, nil, binary))

		By("the rollout key alone configures nothing either")
		expectRefused(ctx, putConfig(ctx, map[string]string{string(sloconfig.KeyRollout): `{"maxNodesPerStep": "10%"}`}))
	})

	It("is admitted with the annotation \"true\", set before or in the same update", func(ctx SpecContext) {
		Expect(putConfig(ctx, good)).To(Succeed())
		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, key, cm)).To(Succeed())
		cm.Data = map[string]string{}
		metav1.SetMetaDataAnnotation(&cm.ObjectMeta, sloconfig.AllowDeleteAnnotation, "yes")
		err := k8sClient.Update(ctx, cm.DeepCopy())
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "not Forbidden: %v", err)
		Expect(err.Error()).To(ContainSubstring(
			`(its ` + sloconfig.AllowDeleteAnnotation + ` is "yes"; only "true" allows the update)`))

		metav1.SetMetaDataAnnotation(&cm.ObjectMeta, sloconfig.AllowDeleteAnnotation, "true")
		Expect(k8sClient.Update(ctx, cm)).To(Succeed())
		Expect(k8sClient.Get(ctx, key, cm)).To(Succeed())
		Expect(cm.Data).To(BeEmpty())

		By("annotated before, an update without the annotation empties it too (kubectl replace)")
		Expect(putConfig(ctx, good)).To(Succeed())
		Expect(k8sClient.Get(ctx, key, cm)).To(Succeed())
		Expect(cm.Annotations).To(HaveKeyWithValue(sloconfig.AllowDeleteAnnotation, "true"))
		cm.Annotations, cm.Data = nil, nil
		Expect(k8sClient.Update(ctx, cm)).To(Succeed())
	})

	It("is an ordinary update when it leaves one of the keys", func(ctx SpecContext) {
		Expect(putConfig(ctx, good)).To(Succeed())
		Expect(putConfig(ctx, map[string]string{burst: good[burst]})).To(Succeed())
		stored := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, key, stored)).To(Succeed())
		Expect(stored.Data).To(Equal(map[string]string{burst: good[burst]}))
	})
})
