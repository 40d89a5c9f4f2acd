//go:build cluster

package cluster

import (
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// pendingNode is a Node without a kubelet, unschedulable: a NodeSLO target
// that the gated rollout keeps pending while the real node is its canary.
const pendingNode = "nodeslo-pending"

// The strategy (the NodeSLORollout's spec.strategy): the real node
// (labelled node-pool=canary) is reached first, then a soak far longer
// than the spec; the gate tolerates no unhealthy reached node and watches
// Ready.
const gatedStrategy = `{"maxNodesPerStep": 1, "stepIntervalSeconds": 3600,
 "canary": {"nodeSelector": {"matchLabels": {"node-pool": "canary"}}, "soakSeconds": 3600},
 "healthGate": {"maxUnhealthyNodes": 0, "nodeConditions": ["Ready"]}}`

// checkHealthGate stops the kubelet of a node a gated rollout reached:
// kube-controller-manager's node lifecycle controller marks the Node
// NotReady (Ready Unknown) once NodeMonitorGracePeriod passes without a
// heartbeat, and the health gate halts the rollout with a Warning
// RolloutHalted that names the node; the pending node is not written. The
// kubelet then starts again, and the strategy there was before is put
// back (none, or the one make deploy or the chart created), which resumes
// the halted rollout.
func checkHealthGate() {
	GinkgoHelper()
	kube.mustRun("label", "node", node.NodeName(), "node-pool=canary", "--overwrite")
	applyNodeWithoutKubelet(pendingNode, "{}")
	DeferCleanup(func() {
		kube.mustRun("delete", "node", pendingNode, "--ignore-not-found")
		kube.mustRun("label", "node", node.NodeName(), "node-pool-")
	})
	threshold := func(nodeName string) func() (string, error) {
		return func() (string, error) {
			return kube.run("get", "nodeslo", nodeName,
				"-o", "jsonpath={.spec.resourceUsedThresholdWithBE.cpuSuppressThresholdPercent}")
		}
	}
	converges(threshold(pendingNode)).Should(Equal("65"))
	converges(threshold(node.NodeName())).Should(Equal("65"))

	By("setting the NodeSLORollout's strategy, then changing the cluster's CPU suppression threshold")
	DeferCleanup(setStrategy(gatedStrategy))
	thresholds := configData("resource-threshold-config")
	changed := strings.Replace(thresholds, `"cpuSuppressThresholdPercent": 65`, `"cpuSuppressThresholdPercent": 60`, 1)
	Expect(changed).NotTo(Equal(thresholds))
	patchData("resource-threshold-config", changed)
	converges(threshold(node.NodeName())).Should(Equal("60"),
		"the canary reached")
	Expect(threshold(pendingNode)()).To(Equal("65"), "the other node pending")

	By("stopping the kubelet")
	node.StopKubelet()
	DeferCleanup(func(ctx SpecContext) {
		Expect(node.StartKubelet(ctx)).To(Succeed())
		waitDeploymentReady(1)
	})
	converges(func() (string, error) {
		return kube.run("get", "node", node.NodeName(), "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
	}).ShouldNot(Equal("True"), "the node lifecycle controller's verdict")
	converges(func() (string, error) {
		return kube.run("get", "events", "-n", namespace, "--field-selector", "reason=RolloutHalted",
			"-o", `jsonpath={range .items[*]}{.type} {.involvedObject.name}: {.message}{"\n"}{end}`)
	}).Should(And(
		ContainSubstring("Warning "+configMapName+": "),
		ContainSubstring(node.NodeName()+" (Ready=Unknown since")))
	Expect(threshold(pendingNode)()).To(Equal("65"), "the halted rollout reached no other node")
}

// applyNodeWithoutKubelet applies (server-side) an unschedulable Node that
// no kubelet runs, with labels (a YAML flow mapping): a NodeSLO target only.
func applyNodeWithoutKubelet(name, labels string) {
	GinkgoHelper()
	manifest := fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n  labels: %s\n"+
		"spec:\n  unschedulable: true\n", name, labels)
	kube.mustRunWithInput(manifest, "apply", "--server-side", "-f", "-")
}

// configData is the key of the ConfigMap, as stored.
func configData(key string) string {
	GinkgoHelper()
	return kube.mustRun("get", "configmap", configMapName, "-n", namespace, "-o", "jsonpath={.data."+key+"}")
}

// patchData sets one key of the ConfigMap.
func patchData(key, value string) {
	GinkgoHelper()
	patch, err := json.Marshal(map[string]any{"data": map[string]string{key: value}})
	Expect(err).NotTo(HaveOccurred())
	kube.mustRun("patch", "configmap", configMapName, "-n", namespace, "--type=merge", "-p", string(patch))
}
