//go:build cluster

package cluster

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const (
	// helmTestImage is the chart's helm test image here: busybox, which
	// hack/cluster/install-node-packages.sh builds from this machine's (no
	// registry is reached), named in testFramework.image.
	helmTestImage = "localhost/nodeslo-cluster/busybox:1"
	// helmTestName names the test's Pod and Service (templates/tests).
	helmTestName = "nodeslo-controller-test-readiness"
	// The metrics server's Certificate and its Secret, with the chart's
	// metrics.certManager.enabled.
	metricsCertificate = "nodeslo-controller-metrics-certs"
	metricsCertSecret  = "metrics-server-cert"
)

// checkHelmTest runs the chart's helm test as an operator does: it passes
// with the manager Ready, and leaves nothing behind; with no replica it
// fails, having found no /readyz to answer, and leaves its Pod to look at.
// The namespace enforces the restricted Pod Security level, so the test
// Pod is admitted only if it meets it.
func checkHelmTest(chart *command) {
	GinkgoHelper()
	testObjects := func() string {
		return strings.TrimSpace(kube.mustRun("get", "pod,service,networkpolicy", "-n", namespace,
			"--field-selector", "metadata.name="+helmTestName, "-o", "name"))
	}

	By("failing with no replica to answer")
	kube.mustRun("scale", "deployment", deploymentName, "-n", namespace, "--replicas=0")
	converges(func() (string, error) {
		return kube.run("get", "pods", "-n", namespace, "-l", "control-plane=controller-manager", "-o", "name")
	}).Should(BeEmpty())
	out, err := chart.run("test", helmRelease, "-n", namespace, "--timeout", "3m")
	Expect(err).To(HaveOccurred(), "helm test passed with no replica: %s", out)
	Expect(kube.mustRun("get", "pod", helmTestName, "-n", namespace, "-o", "jsonpath={.status.phase}")).
		To(Equal("Failed"))
	Expect(kube.mustRun("logs", helmTestName, "-n", namespace)).To(ContainSubstring("did not answer ok"))

	By("passing once the manager is Ready again")
	kube.mustRun("scale", "deployment", deploymentName, "-n", namespace, "--replicas=1")
	waitDeploymentReady(1)
	out = chart.mustRun("test", helmRelease, "-n", namespace, "--timeout", "3m")
	Expect(out).To(MatchRegexp(`TEST SUITE:\s+` + helmTestName + `\s`))
	Expect(out).To(MatchRegexp(`Phase:\s+Succeeded`))
	By("leaving no test object behind (hook-succeeded)")
	converges(testObjects).Should(BeEmpty())
}
