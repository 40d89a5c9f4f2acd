package controller_test

import (
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The manager's cache must not hold what it does not need: a full Node
// carries kilobytes of status that change every few seconds, and a large
// cluster has tens of thousands of ConfigMaps. What the manager asked the
// apiserver for shows what its cache holds.
var _ = Describe("The manager's cache", Serial, func() {
	It("reads Nodes as metadata only", func(ctx SpecContext) {
		node := createNode(ctx, nil, nil)
		Eventually(nodeSLOOf(ctx, node.Name)).Should(Not(BeNil()))

		nodeReads := reads.Of("nodes")
		Expect(nodeReads).NotTo(BeEmpty())
		Expect(nodeReads).To(HaveEach(HaveField("Accept", ContainSubstring("as=PartialObjectMetadata"))))
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
