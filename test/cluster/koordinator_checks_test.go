//go:build cluster

package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"

	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/nodecluster"
)

// differingNode is a Node without a kubelet whose NodeSLO koord-manager
// and this controller write differently: a node strategy of system-config
// that leaves totalNetworkBandwidth out gives it 0 under Koordinator and
// the cluster strategy's value here (docs/behaviour.md#differences-from-koordinator).
const differingNode = "nodeslo-differs"

// differingSystemConfig is the system-config key of the handover: the real
// node gets the cluster strategy, the same under both controllers.
const differingSystemConfig = `{
 "clusterStrategy": {"minFreeKbytesFactor": 100, "watermarkScaleFactor": 150, "totalNetworkBandwidth": "10G"},
 "nodeStrategies": [{"name": "differs", "watermarkScaleFactor": 160,
   "nodeSelector": {"matchLabels": {"nodeslo-handover": "differs"}}}]}`

// bandwidthOf is a NodeSLO spec's systemStrategy.totalNetworkBandwidth.
func bandwidthOf(spec map[string]any) string {
	system, _ := spec["systemStrategy"].(map[string]any)
	bandwidth, _ := system["totalNetworkBandwidth"].(string)
	return bandwidth
}

// checkHandover follows docs/migration.md's handover: the real node, whose
// spec agrees, sees no write from its first command to the end; the
// differing node waits, pending, while the takeover is paused, and is
// written once, by this controller, after the resume.
func checkHandover(book *runbook) {
	GinkgoHelper()
	applyNodeWithoutKubelet(differingNode, "{nodeslo-handover: differs}")
	patchData("system-config", differingSystemConfig)
	converges(func() (string, error) {
		return kube.run("get", "nodeslo", differingNode, "-o", "jsonpath={.spec.systemStrategy.watermarkScaleFactor}")
	}).Should(Equal("160"), "koord-manager wrote the differing node")
	converges(func() (string, error) {
		return kube.run("get", "nodeslo", node.NodeName(), "-o", "jsonpath={.spec.systemStrategy.watermarkScaleFactor}")
	}).Should(Equal("150"), "koord-manager wrote the real node")
	realVersion := nodeSLOVersion(node.NodeName())

	By("step 1: backing up; step 2: validating and previewing")
	book.run("backup")
	preview := book.run("preview")
	Expect(preview).To(ContainSubstring(differingNode), "diff lists the differing node")

	By("steps 3 to 7: installing scaled to zero, pausing, turning koord-manager's nodeslo off, " +
		"checking the writers, replacing the CRD")
	book.run("install-scaled-to-zero")
	// crd.enabled=false leaves the NodeSLO CRD to Koordinator, and the chart
	// still installs this project's NodeSLORollout CRD, which Koordinator's
	// are not: no step applies it by hand.
	releaseOf := func(crd string) string {
		return kube.mustRun("get", "crd", crd, "-o", `jsonpath={.metadata.annotations.meta\.helm\.sh/release-name}`)
	}
	Expect(releaseOf(rolloutCRDName)).To(Equal(helmRelease), "the chart installed the NodeSLORollout CRD")
	Expect(releaseOf(crdName)).To(BeEmpty(), "the NodeSLO CRD is still Koordinator's")
	book.run("pause-takeover")
	book.run("disable-koord-manager-nodeslo")
	writers := book.run("writers")
	Expect(writers).To(ContainSubstring(koordManagerFieldManager))
	book.run("replace-crd")
	Expect(kube.mustRun("get", "crd", crdName, "-o", "jsonpath={.spec.names.shortNames}")).To(ContainSubstring("nslo"),
		"this project's CRD is in place")

	// A watch does not survive the CRD's replacement (the apiserver closes it
	// and the versions before are gone): the writes are watched from here.
	from := nodeSLOListVersion()

	By("step 8: scaling up; the takeover is paused")
	status := book.run("scale-up")
	Expect(status).To(ContainSubstring("paused: yes"))
	Consistently(func() (string, error) {
		return kube.run("get", "nodeslo", differingNode, "-o", "jsonpath={.spec.systemStrategy.totalNetworkBandwidth}")
	}).WithTimeout(10*time.Second).WithPolling(poll).Should(Equal("0"), "held while paused")

	By("step 9: resuming: the differing node is written, the real node never")
	book.run("resume")
	writes := nodeSLOWrites(from, func(name string, spec map[string]any) bool {
		return name == differingNode && bandwidthOf(spec) == "10G"
	})
	logf("NodeSLO writes from the backup to the resumed write: %v", writes)
	Expect(writes).NotTo(HaveKey(node.NodeName()), "the real node's NodeSLO was not written at the handover")
	Expect(nodeSLOVersion(node.NodeName())).To(Equal(realVersion), "nor at any step since the backup")
	Expect(writes[differingNode]).To(HaveLen(1), "the differing node's NodeSLO was written once")
	Expect(writes[differingNode][0]).To(HavePrefix("MODIFIED by manager@"), "by this controller")
	Expect(node.KoordletRunning()).To(BeTrue(), "koordlet runs through the handover")
}

// checkWayBack follows docs/migration.md's way back; koord-manager then
// writes its own values again, and every NodeSLO's spec equals the backup.
func checkWayBack(book *runbook) {
	GinkgoHelper()
	patchData("system-config", differingSystemConfig)
	book.run("stop")
	koordinatorCRD := filepath.Join(setting("KOORDINATOR_CRDS"), "slo.koordinator.sh_nodeslos.yaml")
	data, err := os.ReadFile(koordinatorCRD)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(filepath.Join(book.dir, "slo.koordinator.sh_nodeslos.yaml"), data, 0o644)).To(Succeed())
	book.run("restore-crd")
	Expect(kube.mustRun("get", "crd", crdName, "-o", "jsonpath={.spec.names.shortNames}")).NotTo(ContainSubstring("nslo"),
		"Koordinator's CRD is back")
	book.run("enable-koord-manager-nodeslo")
	book.run("uninstall")
	converges(func() (string, error) {
		return kube.run("get", "nodeslo", differingNode, "-o", "jsonpath={.spec.systemStrategy.totalNetworkBandwidth}")
	}).Should(Equal("0"), "koord-manager writes its own value back")

	By("comparing every NodeSLO with the backup")
	var backup struct {
		Items []struct {
			Metadata struct{ Name string }
			Spec     map[string]any
		}
	}
	Expect(yaml.Unmarshal([]byte(book.file("nodeslo-backup.yaml")), &backup)).To(Succeed())
	Expect(backup.Items).NotTo(BeEmpty())
	for _, item := range backup.Items {
		converges(func() (map[string]any, error) {
			out, err := kube.run("get", "nodeslo", item.Metadata.Name, "-o", "jsonpath={.spec}")
			var spec map[string]any
			if err == nil {
				err = yaml.Unmarshal([]byte(out), &spec)
			}
			return spec, err
		}).Should(Equal(item.Spec), "NodeSLO %s", item.Metadata.Name)
	}
	Expect(node.KoordletRunning()).To(BeTrue(), "koordlet runs through the way back")
	kube.mustRun("delete", "node", differingNode, "--ignore-not-found")
}

// checkKoordletReadsEverything labels the node into the sample's
// colocation pool, which sets every section, and compares the NodeSLO this
// controller stored with koordlet's own log of the NodeSLO it merged:
// every field written is there, with its value.
func checkKoordletReadsEverything() {
	GinkgoHelper()
	applySample()
	kube.mustRun("label", "node", node.NodeName(), "node-pool=colocation", "--overwrite")
	converges(nodeSLOMatchesRender).Should(Succeed())
	stored, err := storedSpec()
	Expect(err).NotTo(HaveOccurred())
	for _, section := range []string{
		"resourceUsedThresholdWithBE", "resourceQOSStrategy", "cpuBurstStrategy", "systemStrategy", "hostApplications",
	} {
		Expect(stored).To(HaveKey(section))
	}
	converges(func() ([]string, error) {
		merged, err := koordletSpec()
		if err != nil {
			return nil, err
		}
		return missingFrom(merged, stored, "spec"), nil
	}).Should(BeEmpty(),
		"fields this controller wrote that koordlet's merged NodeSLO lacks or changes")
	logf("koordlet merged every field of the stored spec: %s", koordletLogLine())
}

// missingFrom lists the paths of want's leaves that got lacks or holds
// with another value.
func missingFrom(got, want any, path string) []string {
	switch w := want.(type) {
	case map[string]any:
		g, _ := got.(map[string]any)
		missing := make([]string, 0, len(w))
		for k, v := range w {
			missing = append(missing, missingFrom(g[k], v, path+"."+k)...)
		}
		return missing
	case []any:
		g, _ := got.([]any)
		if len(g) != len(w) {
			return []string{fmt.Sprintf("%s: %d elements, koordlet has %d", path, len(w), len(g))}
		}
		var missing []string
		for i := range w {
			missing = append(missing, missingFrom(g[i], w[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return missing
	default:
		if !reflect.DeepEqual(got, want) {
			return []string{fmt.Sprintf("%s: %v, koordlet has %v", path, want, got)}
		}
		return nil
	}
}

// koordletLogLine is koordlet's last "update nodeSLO content" line, cut
// for the log.
func koordletLogLine() string {
	merged, _ := koordletMerged()
	if len(merged) > 600 {
		merged = merged[:600] + "..."
	}
	return "update nodeSLO content: ... new " + merged
}

// readCgroup reads one value of the kubelet's best-effort cgroup.
func readCgroup(hierarchy, file string) func() (string, error) {
	return func() (string, error) {
		data, err := os.ReadFile(filepath.Join(nodecluster.BestEffortCgroup(hierarchy), file))
		return strings.TrimSpace(string(data)), err
	}
}

// checkCPUSuppression: the sample's colocation pool suppresses best-effort
// CPU with cpuSuppressPolicy cfsQuota at 80 % of the node: koordlet caps
// the best-effort cgroup's cpu.cfs_quota_us; with the pool's
// resource-threshold strategy disabled it puts -1 (no limit) back.
func checkCPUSuppression() {
	GinkgoHelper()
	quota := readCgroup("cpu", "cpu.cfs_quota_us")
	converges(quota).ShouldNot(Equal("-1"), "koordlet caps best-effort CPU")
	capped, _ := quota()
	thresholds := configData("resource-threshold-config")
	disabled := strings.Replace(thresholds,
		`"cpuSuppressPolicy": "cfsQuota",`, `"cpuSuppressPolicy": "cfsQuota", "enable": false,`, 1)
	Expect(disabled).NotTo(Equal(thresholds))
	patchData("resource-threshold-config", disabled)
	converges(quota).Should(Equal("-1"), "koordlet lifts the cap")
	logf("best-effort cpu.cfs_quota_us: %s while suppressed (cfsQuota, 80%%), -1 once disabled", capped)
	patchData("resource-threshold-config", thresholds)
}

// readSysctl reads /proc/sys/vm/<name>.
func readSysctl(name string) func() (string, error) {
	return func() (string, error) {
		data, err := os.ReadFile("/proc/sys/vm/" + name)
		return strings.TrimSpace(string(data)), err
	}
}

// canaryNode is a Node without a kubelet in the colocation pool, the
// canary of checkSystemStrategyStaged's rollout.
const canaryNode = "nodeslo-canary"

// checkSystemStrategyStaged: a change of the colocation pool's
// watermarkScaleFactor, staged with a canary that is another Node of the
// pool, reaches the canary first; koordlet leaves
// /proc/sys/vm/watermark_scale_factor as it is until the rollout reaches
// the real node after the soak, then writes the new value.
func checkSystemStrategyStaged() {
	GinkgoHelper()
	applyNodeWithoutKubelet(canaryNode, `{node-pool: colocation, nodeslo-canary: "true"}`)
	watermark := func(name string) func() (string, error) {
		return func() (string, error) {
			return kube.run("get", "nodeslo", name, "-o", "jsonpath={.spec.systemStrategy.watermarkScaleFactor}")
		}
	}
	converges(watermark(canaryNode)).Should(Equal("200"))
	scale := readSysctl("watermark_scale_factor")
	converges(scale).Should(Equal("200"), "the colocation pool's value, from koordlet")
	restoreStrategy := setStrategy(`{"maxNodesPerStep": 1, "stepIntervalSeconds": 5,
 "canary": {"nodeSelector": {"matchLabels": {"nodeslo-canary": "true"}}, "soakSeconds": 30}}`)
	system := configData("system-config")
	changed := strings.Replace(system, `"watermarkScaleFactor": 200,`, `"watermarkScaleFactor": 250,`, 1)
	Expect(changed).NotTo(Equal(system))
	patchData("system-config", changed)
	start := time.Now()
	converges(watermark(canaryNode)).Should(Equal("250"), "the canary reached")
	Expect(watermark(node.NodeName())()).To(Equal("200"), "the real node pending")
	Consistently(scale).WithTimeout(20*time.Second).WithPolling(poll).Should(Equal("200"),
		"the real node is pending: koordlet keeps the old value")
	converges(scale).Should(Equal("250"), "reached: koordlet writes the new value")
	logf("watermark_scale_factor: 200 while the rollout held the node, 250 %s after the change",
		time.Since(start).Round(time.Second))
	By("putting the configuration back, and waiting for its rollout to end before the strategy changes")
	patchData("system-config", system)
	converges(scale).Should(Equal("200"))
	waitRolloutSettled()
	// The kubelet-less canary goes before the strategy it was made for: a
	// health gate of the strategy put back would judge it (Ready=Unknown
	// once the node lifecycle controller gives up on it).
	kube.mustRun("delete", "node", canaryNode)
	kube.mustRun("label", "node", node.NodeName(), "node-pool-")
	restoreStrategy()
}

// bePod is a best-effort Pod for koordlet to evict: Koordinator's BE label,
// no requests (the kubelet's besteffort QoS class), the sandbox image.
const bePod = `apiVersion: v1
kind: Pod
metadata:
  name: best-effort
  namespace: default
  labels: {koordinator.sh/qosClass: BE}
spec:
  nodeName: %s
  restartPolicy: Always
  securityContext:
    runAsNonRoot: true
    seccompProfile: {type: RuntimeDefault}
  containers:
  - name: sleeper
    image: localhost/nodeslo-cluster/pause:1
    imagePullPolicy: Never
    securityContext:
      allowPrivilegeEscalation: false
      capabilities: {drop: [ALL]}
`

// checkEvictionHalts: a gated rollout reaches the real node first (its
// canary); the change sets a memory eviction threshold far below the
// node's use, so koordlet, in its default mode, kills the best-effort
// Pod's container through the CRI (no Event, no API eviction) and counts
// it in its koordlet_pod_eviction metric. A Prometheus on the host scrapes
// koordlet, and the gate's metric check, the recipe of
// docs/rollout.md#evictions, halts the rollout before the pending node is
// written. The manager counts no Pod (no --health-gate-pod-namespaces): it
// halts on a signal only koordlet writes, not on the Pod's status, which
// whoever runs the Pod can drive.
func checkEvictionHalts() {
	GinkgoHelper()
	// The pending Node has no kubelet, so it turns Ready=Unknown: the
	// strategy found (make deploy's, whose gate watches Ready) would halt on
	// it once written. A strategy without a gate stands in until the
	// scenario's own, and is put back last, once the pending Node is gone.
	waitRolloutSettled()
	DeferCleanup(setStrategy(`{}`))
	kube.mustRun("label", "node", node.NodeName(), "node-pool=canary", "--overwrite")
	applyNodeWithoutKubelet(pendingNode, "{}")
	kube.mustRunWithInput(fmt.Sprintf(bePod, node.NodeName()), "apply", "--server-side", "-f", "-")
	DeferCleanup(func() {
		kube.mustRun("delete", "pod", "best-effort", "-n", "default", "--ignore-not-found", "--grace-period=0", "--force")
		kube.mustRun("delete", "node", pendingNode, "--ignore-not-found")
		kube.mustRun("label", "node", node.NodeName(), "node-pool-")
	})
	converges(func() (string, error) {
		return kube.run("get", "pod", "best-effort", "-n", "default",
			"-o", "jsonpath={.status.phase} {.status.containerStatuses[0].restartCount}")
	}).Should(Equal("Running 0"))
	evict := func(name string) func() (string, error) {
		return func() (string, error) {
			return kube.run("get", "nodeslo", name,
				"-o", "jsonpath={.spec.resourceUsedThresholdWithBE.memoryEvictThresholdPercent}")
		}
	}
	converges(evict(pendingNode)).Should(Equal("70"))

	By("scraping koordlet with a Prometheus on the node's address, which the manager may reach")
	nodeIP := kube.mustRun("get", "node", node.NodeName(),
		"-o", `jsonpath={.status.addresses[?(@.type=="InternalIP")].address}`)
	listen := envtestharness.FreeAddress(nodeIP)
	prometheus := envtestharness.StartPrometheus(listen,
		strings.TrimSuffix(strings.TrimPrefix(node.KoordletMetrics(), "http://"), "/metrics"))
	allowMetricHost(listen)

	// A rollout still under way would be judged by the gate set below, and
	// reach the pending node, created meanwhile, at once. The gate watches
	// no Ready: the pending Node has no kubelet, and only the eviction may
	// halt.
	waitRolloutSettled()

	By("setting a gated strategy, then a memory eviction threshold of 2 % for every node")
	restoreStrategy := setStrategy(fmt.Sprintf(`{"maxNodesPerStep": 1, "stepIntervalSeconds": 3600,
 "canary": {"nodeSelector": {"matchLabels": {"node-pool": "canary"}}, "soakSeconds": 3600},
 "healthGate": {"maxUnhealthyNodes": 0, "nodeConditions": ["MemoryPressure"],
  "metrics": [{"name": %q, "address": %q, "query": %q, "max": 0, "intervalSeconds": 5}]}}`,
		evictionsCheck, prometheus, envtestharness.DocumentedQuery(evictionsCheck)))
	thresholds := configData("resource-threshold-config")
	DeferCleanup(func() {
		restoreStrategy()
		patchData("resource-threshold-config", thresholds)
	})
	low := strings.Replace(thresholds,
		`"memoryEvictThresholdPercent": 70,`, `"memoryEvictThresholdPercent": 2, "memoryEvictLowerPercent": 1,`, 1)
	Expect(low).NotTo(Equal(thresholds))
	patchData("resource-threshold-config", low)
	converges(evict(node.NodeName())).Should(Equal("2"), "the canary reached")

	By("koordlet kills the best-effort container and counts it; the gate halts on koordlet's count")
	converges(func() (string, error) {
		return kube.run("get", "pod", "best-effort", "-n", "default",
			"-o", "jsonpath={.status.containerStatuses[0].lastState.terminated.exitCode}")
	}).Should(Equal("137"), "killed by koordlet (SIGKILL through the CRI)")
	converges(func() (string, error) {
		return kube.run("get", "events", "-n", namespace, "--field-selector", "reason=RolloutHalted",
			"-o", `jsonpath={range .items[*]}{.type} {.involvedObject.name}: {.message}{"\n"}{end}`)
	}).Should(MatchRegexp(`metric check %s failed: value [1-9][0-9]* outside <= 0`, evictionsCheck))
	halt := kube.mustRun("get", "events", "-n", namespace, "--field-selector", "reason=RolloutHalted",
		"-o", `jsonpath={range .items[*]}{.message}{"\n"}{end}`)
	logf("koordlet's eviction log: %s", koordletEvictionLine())
	logf("RolloutHalted: %s", strings.TrimSpace(halt))
	Expect(evict(pendingNode)()).To(Equal("70"), "the halted rollout wrote no other node")
}

// evictionsCheck is the name of docs/rollout.md's recipe of a metric check
// on koordlet's evictions.
const evictionsCheck = "koordlet-evictions"

// allowMetricHost lets the manager's metric checks reach hostPort without
// credentials (--metric-gate-allowed-hosts), as an operator would set
// metricGate.allowedHosts, and waits for the restarted manager; the
// arguments are put back at cleanup.
func allowMetricHost(hostPort string) {
	GinkgoHelper()
	args := kube.mustRun("get", "deployment", deploymentName, "-n", namespace,
		"-o", "jsonpath={.spec.template.spec.containers[0].args}")
	patch := func(op, value string) string {
		return fmt.Sprintf(`[{"op": %q, "path": "/spec/template/spec/containers/0/args%s", "value": %s}]`,
			op, map[string]string{"add": "/-", "replace": ""}[op], value)
	}
	kube.mustRun("patch", "deployment", deploymentName, "-n", namespace, "--type=json",
		"-p", patch("add", fmt.Sprintf("%q", "--metric-gate-allowed-hosts="+hostPort)))
	DeferCleanup(func() {
		kube.mustRun("patch", "deployment", deploymentName, "-n", namespace, "--type=json",
			"-p", patch("replace", args))
		waitDeploymentReady(1)
	})
	waitDeploymentReady(1)
}

// waitRolloutSettled waits until the rollout completed, as the controller's
// rollout status says (every node has the configuration in force, not only
// none pending: the gate still judges the last step's nodes), or no strategy,
// under which every change reaches every node at once (the NodeSLORollout
// may hold none: the scenarios put back the strategy they found).
func waitRolloutSettled() {
	GinkgoHelper()
	converges(func() (string, error) {
		return kube.run("nodeslo", "rollout", "status", "--watch=false")
	}).Should(Or(ContainSubstring("complete: every node has the configuration in force"),
		ContainSubstring("no spec.strategy: every change reaches every node at once")))
}

// koordletEvictionLine is koordlet's last log line about a Pod it picked to
// evict (it logs the kill only when it fails).
func koordletEvictionLine() string {
	data, _ := os.ReadFile(node.KoordletLog())
	for _, line := range slices.Backward(strings.Split(string(data), "\n")) {
		if strings.Contains(line, "picked pod") {
			return line
		}
	}
	return "(none)"
}
