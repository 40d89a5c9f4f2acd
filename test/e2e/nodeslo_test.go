//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The sample nodes and what config/samples/slo-controller-config.yaml gives them.
var sampleNodes = []string{"general-1", "colocation-1", "colocation-2", "online-1"}

const (
	converge = 30 * time.Second
	poll     = 250 * time.Millisecond
)

var _ = Describe("the manager, driven with kubectl", Ordered, func() {
	BeforeAll(func() {
		kube.mustRun("apply", "--server-side", "-f", filepath.Join(root, "config", "samples", "slo-controller-config.yaml"))
		kube.mustRun("apply", "--server-side", "-f", filepath.Join(root, "config", "samples", "nodes.yaml"))
	})

	It("writes one NodeSLO per Node, shown with the printer columns", func() {
		Eventually(func(g Gomega) {
			out, err := kube.run("get", "nodeslo")
			g.Expect(err).NotTo(HaveOccurred())
			lines := strings.Split(strings.TrimSpace(out), "\n")
			g.Expect(strings.Fields(lines[0])).To(Equal(
				[]string{"NAME", "BE-ENABLED", "CPU-SUPPRESS%", "MEM-EVICT%", "CPU-BURST", "AGE"}))
			g.Expect(lines[1:]).To(HaveLen(len(sampleNodes)))
			g.Expect(rowOf(lines, "general-1")).To(HavePrefix("general-1 true 65 70 none "))
			g.Expect(rowOf(lines, "colocation-1")).To(HavePrefix("colocation-1 true 80 85 auto "))
			g.Expect(rowOf(lines, "online-1")).To(HavePrefix("online-1 false 65 70 none "))
		}).Should(Succeed())

		Expect(strings.Fields(kube.mustRun("get", "nslo", "-o", "name"))).To(HaveLen(len(sampleNodes)),
			"the short name lists the same NodeSLOs")

		wide := kube.mustRun("get", "nodeslo", "colocation-2", "-o", "wide")
		Expect(wide).To(ContainSubstring("BANDWIDTH"))
		Expect(rowOf(strings.Split(wide, "\n"), "colocation-2")).To(ContainSubstring(" 25G "),
			"the node's network-bandwidth annotation wins over system-config")
	})

	It("follows a kubectl patch of the ConfigMap", func() {
		kube.mustRun("patch", "configmap", configMapName, "-n", namespace, "--type=merge",
			"-p", `{"data":{"cpu-burst-config":"{\"clusterStrategy\":{\"policy\":\"cpuBurstOnly\"}}"}}`)
		Eventually(func(g Gomega) {
			for _, node := range sampleNodes {
				g.Expect(kube.run("get", "nodeslo", node, "-o", "jsonpath={.spec.cpuBurstStrategy.policy}")).
					To(Equal("cpuBurstOnly"), "node %s", node)
			}
		}).Should(Succeed())
	})

	It("warns about a broken ConfigMap with an Event and changes no NodeSLO", func() {
		before := kube.mustRun("get", "nodeslo", "-o", resourceVersions)
		kube.mustRun("patch", "configmap", configMapName, "-n", namespace, "--type=merge",
			"-p", `{"data":{"resource-threshold-config":"{\"clusterStrategy\":{\"cpuSuppressThresholdPercent\":150}}"}}`)
		Eventually(func(g Gomega) {
			events, err := kube.run("get", "events", "-n", namespace,
				"--field-selector", "type=Warning,involvedObject.kind=ConfigMap,involvedObject.name="+configMapName,
				"-o", "jsonpath={range .items[*]}{.reason}: {.message}{\"\\n\"}{end}")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(events).To(And(
				ContainSubstring("resource-threshold-config"), ContainSubstring("cpuSuppressThresholdPercent")))
		}).Should(Succeed())
		// Each look runs kubectl: fewer looks, over a longer window than the default.
		Consistently(func() (string, error) {
			return kube.run("get", "nodeslo", "-o", resourceVersions)
		}).WithTimeout(3 * time.Second).WithPolling(500 * time.Millisecond).Should(Equal(before))
	})

	It("explains a node with kubectl nodeslo explain", func() {
		out := kube.mustRun("nodeslo", "explain", "colocation-1")
		Expect(out).To(ContainSubstring(`node strategy "colocation" (index 0)`))
		Expect(out).To(MatchRegexp(`resource-threshold-config\s+invalid`))
		Expect(out).To(ContainSubstring("cpuSuppressThresholdPercent"))
		Expect(out).To(ContainSubstring("matches the configuration"))
		Expect(kube.mustRun("nodeslo", "explain", "colocation-2")).
			To(ContainSubstring("Bandwidth: 25G (annotation node.koordinator.sh/network-bandwidth=25G)"))

		By("fixing the ConfigMap, the explanation is clean again")
		kube.mustRun("apply", "--server-side", "--force-conflicts",
			"-f", filepath.Join(root, "config", "samples", "slo-controller-config.yaml"))
		Eventually(func(g Gomega) {
			out, err := kube.run("nodeslo", "explain", "general-1")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(out).To(ContainSubstring("cluster strategy"))
			g.Expect(out).NotTo(ContainSubstring("invalid"))
			g.Expect(out).To(ContainSubstring("matches the configuration"))
		}).Should(Succeed())
	})

	It("refuses to explain a node that does not exist", func() {
		_, err := kube.run("nodeslo", "explain", "no-such-node")
		Expect(err).To(MatchError(ContainSubstring(`node "no-such-node" not found`)))
	})

	It("deletes the NodeSLO of a deleted Node", func() {
		kube.mustRun("delete", "node", "online-1")
		Eventually(func() (string, error) {
			return kube.run("get", "nodeslo", "-o", "name")
		}).ShouldNot(ContainSubstring("online-1"))
		Expect(kube.mustRun("get", "nodeslo", "-o", "name")).To(ContainSubstring("general-1"))
	})
})

// resourceVersions prints name=resourceVersion of each object, one a line.
const resourceVersions = `jsonpath={range .items[*]}{.metadata.name}={.metadata.resourceVersion}{"\n"}{end}`

// rowOf returns the table row of name with its columns single-spaced.
func rowOf(lines []string, name string) string {
	for _, line := range lines {
		if fields := strings.Fields(line); len(fields) > 0 && fields[0] == name {
			return strings.Join(fields, " ") + " "
		}
	}
	return ""
}
