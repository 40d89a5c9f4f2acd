//go:build cluster

package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// leaseName is the manager's leader election Lease (its default
// --leader-election-id; neither rendering sets another).
const leaseName = "nodeslo-controller.slo.koordinator.sh"

var nodeSLOs = schema.GroupVersionResource{Group: "slo.koordinator.sh", Version: "v1alpha1", Resource: "nodeslos"}

// leaderPod is the Pod that holds the Lease (controller-runtime's identity
// is the Pod's hostname, then "_" and a UUID).
func leaderPod() (string, error) {
	holder, err := kube.run("get", "lease", leaseName, "-n", namespace, "-o", "jsonpath={.spec.holderIdentity}")
	pod, _, _ := strings.Cut(holder, "_")
	return pod, err
}

// checkLeaderHandover: with 2 replicas one leads; deleting its Pod (a
// graceful stop releases the Lease) hands over to the other, which writes
// no NodeSLO for the handover itself, and then carries a change: the
// node's NodeSLO sees exactly one write, the change's.
func checkLeaderHandover() {
	GinkgoHelper()
	kube.mustRun("scale", "deployment", deploymentName, "-n", namespace, "--replicas=2")
	DeferCleanup(func() {
		kube.mustRun("scale", "deployment", deploymentName, "-n", namespace, "--replicas=1")
		waitDeploymentReady(1)
	})
	waitDeploymentReady(2)
	converges(nodeSLOMatchesRender).Should(Succeed())
	leader, err := leaderPod()
	Expect(err).NotTo(HaveOccurred())
	Expect(leader).NotTo(BeEmpty())
	pods := strings.Fields(kube.mustRun("get", "pods", "-n", namespace, "-l", "control-plane=controller-manager",
		"-o", "jsonpath={.items[*].metadata.name}"))
	Expect(pods).To(HaveLen(2))
	Expect(pods).To(ContainElement(leader))

	By("watching the node's NodeSLO from its current version")
	version := kube.mustRun("get", "nodeslo", node.NodeName(), "-o", "jsonpath={.metadata.resourceVersion}")
	client, err := dynamic.NewForConfig(node.RESTConfig())
	Expect(err).NotTo(HaveOccurred())
	watcher, err := client.Resource(nodeSLOs).Watch(context.Background(), metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", node.NodeName()).String(),
		ResourceVersion: version,
	})
	Expect(err).NotTo(HaveOccurred())
	defer watcher.Stop()

	By("deleting the leader's Pod " + leader)
	deleted := time.Now()
	kube.mustRun("delete", "pod", leader, "-n", namespace)
	// The standby, or the Pod the ReplicaSet starts in the deleted one's
	// place: whichever takes the Lease first.
	converges(func() (string, error) {
		holder, err := leaderPod()
		if err != nil || holder == "" || holder == leader {
			return "", err
		}
		running := kube.mustRun("get", "pods", "-n", namespace, "-l", "control-plane=controller-manager",
			"--field-selector=status.phase=Running", "-o", "jsonpath={.items[*].metadata.name}")
		if !slices.Contains(strings.Fields(running), holder) {
			return "", fmt.Errorf("the Lease names %s, not a running Pod of the Deployment (%s)", holder, running)
		}
		return holder, nil
	}).ShouldNot(BeEmpty(), "another Pod leads")
	newLeader, _ := leaderPod()
	logf("the Lease passed from %s to %s (the standby %s) %s after the deletion began",
		leader, newLeader, strings.Join(without(pods, leader), ""), time.Since(deleted).Round(time.Second))

	By("changing the ConfigMap: the new leader writes the change")
	kube.mustRun("patch", "configmap", configMapName, "-n", namespace, "--type=merge",
		"-p", `{"data":{"cpu-burst-config":"{\"clusterStrategy\":{\"policy\":\"auto\"}}"}}`)
	converges(nodeSLOMatchesRender).Should(Succeed())
	Expect(kube.mustRun("get", "nodeslo", node.NodeName(), "-o", "jsonpath={.spec.cpuBurstStrategy.policy}")).
		To(Equal("auto"))
	final := kube.mustRun("get", "nodeslo", node.NodeName(), "-o", "jsonpath={.metadata.resourceVersion}")

	By("counting the writes the watch saw up to the NodeSLO now stored")
	var writes []string
	timeout := time.After(converge)
	for done := false; !done; {
		var event watch.Event
		select {
		case event = <-watcher.ResultChan():
		case <-timeout:
			Fail(fmt.Sprintf("the watch did not reach version %s; it saw %v", final, writes))
		}
		Expect(event.Type).To(Equal(watch.Modified), "%v", event.Object)
		meta, err := json.Marshal(event.Object)
		Expect(err).NotTo(HaveOccurred())
		var slo struct {
			Metadata struct{ ResourceVersion string } `json:"metadata"`
			Spec     struct {
				CPUBurstStrategy struct{ Policy string } `json:"cpuBurstStrategy"`
			} `json:"spec"`
		}
		Expect(json.Unmarshal(meta, &slo)).To(Succeed())
		writes = append(writes, fmt.Sprintf("%s policy=%s", slo.Metadata.ResourceVersion, slo.Spec.CPUBurstStrategy.Policy))
		done = slo.Metadata.ResourceVersion == final
	}
	Expect(writes).To(Equal([]string{final + " policy=auto"}), "the NodeSLO's writes since the handover began")
}

// without is list without element.
func without(list []string, element string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(e string) bool { return e == element })
}
