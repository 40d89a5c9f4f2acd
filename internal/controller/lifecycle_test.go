package controller_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
)

// One It per row of the reconcile table in docs/behaviour.md#lifecycle, plus
// hand edits, recreation and semantic equality.
var _ = Describe("The NodeSLO lifecycle", Serial, func() {
	It("Node present, NodeSLO absent: creates it with the defaults when there is no ConfigMap", func(ctx SpecContext) {
		creates, resolves := reconcilesOf(controller.OpCreate), metricValue(controller.MetricResolveSeconds, nil)
		node := createNode(ctx, nil, nil)

		Eventually(specOf(ctx, node.Name)).Should(And(
			haveField(false, "resourceUsedThresholdWithBE", "enable"),
			haveField(65.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
			haveField("cpuset", "resourceUsedThresholdWithBE", "cpuSuppressPolicy"),
			haveField(70.0, "resourceUsedThresholdWithBE", "memoryEvictThresholdPercent"),
			haveField("evictByRealLimit", "resourceUsedThresholdWithBE", "cpuEvictPolicy"),
			haveField(map[string]any{}, "resourceQOSStrategy"),
			haveField("none", "cpuBurstStrategy", "policy"),
			haveField(1000.0, "cpuBurstStrategy", "cpuBurstPercent"),
			haveField(300.0, "cpuBurstStrategy", "cfsQuotaBurstPercent"),
			haveField(-1.0, "cpuBurstStrategy", "cfsQuotaBurstPeriodSeconds"),
			haveField(50.0, "cpuBurstStrategy", "sharePoolThresholdPercent"),
			haveField("0", "systemStrategy", "totalNetworkBandwidth"),
			haveField(nil, "hostApplications"),
		))
		// Counted once the write returned, which may be after its object is seen.
		Eventually(func() float64 { return reconcilesOf(controller.OpCreate) }).Should(BeNumerically(">", creates))
		Expect(metricValue(controller.MetricResolveSeconds, nil)).To(BeNumerically(">", resolves), "resolve latency observed")
	})

	It("Node present, NodeSLO present and equal: writes nothing", func(ctx SpecContext) {
		node := createNode(ctx, map[string]string{"pool": "a"}, nil)
		Eventually(nodeSLOOf(ctx, node.Name)).Should(Not(BeNil()))
		settle()
		before := resourceVersions(ctx, node.Name)
		writesBefore, noops := writes.Succeeded(node.Name), reconcilesOf(controller.OpNoop)

		// A label change reconciles the node; no strategy selects on it.
		node.Labels["pool"] = "b"
		Expect(k8sClient.Update(ctx, node)).To(Succeed())

		Eventually(func() float64 { return reconcilesOf(controller.OpNoop) }).Should(BeNumerically(">", noops))
		Consistently(func() int { return writes.Succeeded(node.Name) }).Should(Equal(writesBefore))
		Expect(resourceVersions(ctx, node.Name)).To(Equal(before))
	})

	It("Node absent, NodeSLO present: deletes the NodeSLO", func(ctx SpecContext) {
		node := createNode(ctx, nil, nil)
		Eventually(nodeSLOOf(ctx, node.Name)).Should(Not(BeNil()))
		deletes := reconcilesOf(controller.OpDelete)

		Expect(k8sClient.Delete(ctx, node)).To(Succeed())
		Eventually(func() error { return getNodeSLO(ctx, node.Name, &slov1alpha1.NodeSLO{}) }).
			Should(Satisfy(apierrors.IsNotFound))
		// Counted once the delete returned, which may be after the NodeSLO is seen gone.
		Eventually(func() float64 { return reconcilesOf(controller.OpDelete) }).Should(BeNumerically(">", deletes))
	})

	It("Node absent, NodeSLO absent: a NodeSLO made for no node is deleted, then nothing is done", func(ctx SpecContext) {
		name := uniqueName("ghost")
		orphan := &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: name}}
		Expect(k8sClient.Create(ctx, orphan)).To(Succeed())

		Eventually(func() error { return getNodeSLO(ctx, name, &slov1alpha1.NodeSLO{}) }).
			Should(Satisfy(apierrors.IsNotFound))
		// Its delete event reconciles the name once more: neither exists, nothing is created.
		Consistently(func() error { return getNodeSLO(ctx, name, &slov1alpha1.NodeSLO{}) }).
			Should(Satisfy(apierrors.IsNotFound))
		Expect(writes.Succeeded(name)).To(Equal(1), "one delete, nothing else")
	})

	It("puts back a NodeSLO edited by hand", func(ctx SpecContext) {
		node := createNode(ctx, nil, nil)
		Eventually(specOf(ctx, node.Name)).
			Should(haveField(65.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))

		patch := []byte(`{"spec":{"resourceUsedThresholdWithBE":{"cpuSuppressThresholdPercent":10},"cpuBurstStrategy":null}}`)
		Expect(k8sClient.Patch(ctx, &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: node.Name}},
			client.RawPatch(types.MergePatchType, patch))).To(Succeed())

		Eventually(specOf(ctx, node.Name)).Should(And(
			haveField(65.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
			haveField("none", "cpuBurstStrategy", "policy"),
		))
	})

	It("recreates a deleted NodeSLO", func(ctx SpecContext) {
		node := createNode(ctx, nil, nil)
		Eventually(nodeSLOOf(ctx, node.Name)).Should(Not(BeNil()))
		first, err := nodeSLOOf(ctx, node.Name)()
		Expect(err).NotTo(HaveOccurred())
		Expect(k8sClient.Delete(ctx, first)).To(Succeed())

		Eventually(nodeSLOOf(ctx, node.Name)).Should(
			WithTransform(func(s *slov1alpha1.NodeSLO) bool { return s.UID != first.UID }, BeTrue()))
	})

	It("does not rewrite a spec that means the same as the resolved one", func(ctx SpecContext) {
		node := createNode(ctx, nil, map[string]string{"node.koordinator.sh/network-bandwidth": "1G"})
		Eventually(specOf(ctx, node.Name)).Should(haveField("1G", "systemStrategy", "totalNetworkBandwidth"))
		settle()
		before := writes.Succeeded(node.Name)

		noops := reconcilesOf(controller.OpNoop)

		// 1000M is 1G written otherwise, and an empty list is no list: a spec
		// change for the apiserver (a new generation, so a reconcile), but no
		// difference in meaning, so no write.
		patch := []byte(`{"spec":{"systemStrategy":{"totalNetworkBandwidth":"1000M"},"hostApplications":[]}}`)
		Expect(k8sClient.Patch(ctx, &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: node.Name}},
			client.RawPatch(types.MergePatchType, patch))).To(Succeed())

		Eventually(func() float64 { return reconcilesOf(controller.OpNoop) }).Should(BeNumerically(">", noops))
		Consistently(func() int { return writes.Succeeded(node.Name) }).Should(Equal(before))
	})
})
