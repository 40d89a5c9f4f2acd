package controller_test

import (
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The manager's cache must not hold what it does not need: a full Node
// carries kilobytes of status that change every few seconds, and a large
// cluster has tens of thousands of ConfigMaps. What the manager asked the
// apiserver for shows what its cache holds.
var _ = Describe("The manager's cache", Serial, func() {
	It("reads Nodes as metadata only, but for a health gate judging a rollout", func(ctx SpecContext) {
		node := createNode(ctx, nil, nil)
		Eventually(nodeSLOOf(ctx, node.Name)).Should(Not(BeNil()))

		cached, _ := nodeReadsByHealthGate()
		Expect(cached).NotTo(BeEmpty())
		Expect(cached).To(HaveEach(HaveField("Accept", ContainSubstring("as=PartialObjectMetadata"))))
	})

	It("lists and watches NodeSLOs as metadata only, and reads one whole only when its digest cannot vouch for it",
		func(ctx SpecContext) {
			node := createNode(ctx, nil, nil)
			Eventually(nodeSLOOf(ctx, node.Name)).Should(Not(BeNil()))
			Expect(watches(reads.Of("nodeslos"))).NotTo(BeEmpty())
			Expect(watches(reads.Of("nodeslos"))).
				To(HaveEach(HaveField("Accept", ContainSubstring("as=PartialObjectMetadata"))))

			// A configuration change is decided on the digests alone.
			before := len(wholeReads())
			setConfig(ctx, map[string]string{string(sloconfig.KeyResourceThreshold): suppressAt55})
			Eventually(specOf(ctx, node.Name)).Should(haveField(55.0,
				"resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))
			settle()
			Expect(wholeReads()[before:]).To(BeEmpty())

			// A hand edit moves the generation past the one the digest names:
			// that NodeSLO is read whole, and put back.
			slo := &slov1alpha1.NodeSLO{}
			Expect(getNodeSLO(ctx, node.Name, slo)).To(Succeed())
			slo.Spec.ResourceUsedThresholdWithBE.CPUSuppressThresholdPercent = new(int64(90))
			Expect(k8sClient.Update(ctx, slo)).To(Succeed())
			Eventually(specOf(ctx, node.Name)).Should(haveField(55.0,
				"resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))
			Expect(wholeReads()[before:]).To(ConsistOf(HaveField("Path", controller.NodeSLOsPath+"/"+node.Name)))
		})

	It("reads the one configured ConfigMap only", func() {
		cmReads := reads.Of("configmaps")
		Expect(cmReads).NotTo(BeEmpty())
		for _, r := range cmReads {
			Expect(r.Path).To(HavePrefix("/api/v1/namespaces/" + configNamespace + "/configmaps"))
			if r.Path == "/api/v1/namespaces/"+configNamespace+"/configmaps" { // list and watch
				q, err := url.ParseQuery(r.Query)
				Expect(err).NotTo(HaveOccurred())
				Expect(q.Get("fieldSelector")).To(Equal("metadata.name=" + configName))
			} else {
				Expect(r.Path).To(HaveSuffix("/configmaps/" + configName))
			}
		}
	})
})

// watches are the watches among reads: the cache's (which lists by
// watching, sendInitialEvents). A rollout's decision may still list
// NodeSLOs whole past the cache when their digests cannot decide.
func watches(reads []readRequest) []readRequest {
	var out []readRequest
	for _, r := range reads {
		if q, err := url.ParseQuery(r.Query); err == nil && q.Get("watch") == "true" {
			out = append(out, r)
		}
	}
	return out
}

// wholeReads are the manager's reads of NodeSLOs that asked for the whole
// object rather than its metadata.
func wholeReads() []readRequest {
	var out []readRequest
	for _, r := range reads.Of("nodeslos") {
		if !strings.Contains(r.Accept, "as=PartialObjectMetadata") {
			out = append(out, r)
		}
	}
	return out
}

// nodeReadsByHealthGate splits the Node reads so far into the cache's and
// those of a health gate's watch (docs/rollout.md#health-gates), told
// apart by its user agent.
func nodeReadsByHealthGate() (cached, gate []readRequest) {
	for _, r := range reads.Of("nodes") {
		if strings.HasSuffix(r.UserAgent, " "+controller.HealthGateUserAgent) {
			gate = append(gate, r)
		} else {
			cached = append(cached, r)
		}
	}
	return cached, gate
}
