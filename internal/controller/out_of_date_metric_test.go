package controller_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// outOfDate returns nodeslo_out_of_date_nodes as reason -> value.
func outOfDate() map[string]float64 {
	out := map[string]float64{}
	for _, labels := range metricSeries(controller.MetricOutOfDateNodes) {
		out[labels["reason"]] = metricValue(controller.MetricOutOfDateNodes, labels)
	}
	return out
}

// outOfDateBy is the metric with n nodes for reason and none for the others.
func outOfDateBy(reason string, n float64) map[string]float64 {
	out := map[string]float64{
		controller.OutOfDateMissing: 0, controller.OutOfDateDiffers: 0, controller.OutOfDateEdited: 0,
	}
	out[reason] = n
	return out
}

// docs/behaviour.md#metrics. The node's reconciles are held
// (reconcileHold) so that its NodeSLO stays out of date for as long as the
// spec looks, as a refused write or a missed trigger would leave it.
var _ = Describe("The nodeslo_out_of_date_nodes metric", Serial, func() {
	It("counts the nodes whose NodeSLO does not hold what the configuration resolves, by reason, "+
		"and not those a staged rollout holds", func(ctx SpecContext) {
		burst := string(sloconfig.KeyCPUBurst)
		setConfig(ctx, map[string]string{burst: autoBurst})
		node := createNode(ctx, nil, nil).Name
		Eventually(specOf(ctx, node)).Should(haveField("auto", "cpuBurstStrategy", "policy"))
		upToDate := outOfDateBy(controller.OutOfDateMissing, 0)
		Eventually(outOfDate).Should(Equal(upToDate), "every node up to date, every reason a series")

		By("a configuration change the node's reconciles do not carry out: differs")
		arrived, release := heldReconciles.hold(node)
		setConfig(ctx, map[string]string{burst: `{"clusterStrategy": {"policy": "cfsQuotaBurstOnly"}}`})
		Eventually(arrived).Should(BeClosed())
		Eventually(outOfDate).Should(Equal(outOfDateBy(controller.OutOfDateDiffers, 1)))
		release()
		Eventually(specOf(ctx, node)).Should(haveField("cfsQuotaBurstOnly", "cpuBurstStrategy", "policy"))
		Eventually(outOfDate).Should(Equal(upToDate))

		By("its NodeSLO edited by hand: edited, its digest annotation vouching for no spec")
		arrived, release = heldReconciles.hold(node)
		slo := &slov1alpha1.NodeSLO{}
		Expect(getNodeSLO(ctx, node, slo)).To(Succeed())
		slo.Spec.CPUBurstStrategy.Policy = slov1alpha1.CPUBurstNone
		Expect(k8sClient.Update(ctx, slo)).To(Succeed())
		Eventually(arrived).Should(BeClosed())
		Eventually(outOfDate).Should(Equal(outOfDateBy(controller.OutOfDateEdited, 1)))
		release()
		Eventually(specOf(ctx, node)).Should(haveField("cfsQuotaBurstOnly", "cpuBurstStrategy", "policy"))
		Eventually(outOfDate).Should(Equal(upToDate))

		By("its NodeSLO deleted: missing")
		arrived, release = heldReconciles.hold(node)
		Expect(k8sClient.Delete(ctx, slo)).To(Succeed())
		Eventually(arrived).Should(BeClosed())
		Eventually(outOfDate).Should(Equal(outOfDateBy(controller.OutOfDateMissing, 1)))
		release()
		Eventually(nodeSLOOf(ctx, node)).Should(Not(BeNil()))
		Eventually(outOfDate).Should(Equal(upToDate))

		By("a paused staged rollout holds every node whose NodeSLO differs: none is counted")
		setConfig(ctx, rolloutData(40, rolloutPolicy(true)))
		Eventually(metric(controller.MetricRolloutPending)).Should(BeNumerically(">", 0))
		Expect(rolloutPhase()).To(Equal(controller.RolloutPhasePaused))
		Expect(specOf(ctx, node)()).To(haveField("cfsQuotaBurstOnly", "cpuBurstStrategy", "policy"),
			"held on the configuration before, which differs from the one in force")
		Consistently(outOfDate).WithTimeout(2 * time.Second).Should(Equal(upToDate))
	})
})
