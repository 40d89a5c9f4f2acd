package controller_test

import (
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/internal/controller"
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
