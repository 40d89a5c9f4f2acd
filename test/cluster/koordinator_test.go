//go:build cluster

package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/nodeslo/nodeslo-controller/test/nodecluster"
)

// koordManagerManifest runs Koordinator's koord-manager as its chart does
// (a Deployment koord-manager in koordinator-system, Pods labelled
// koord-app=koord-manager, leader election on; Ready once its metrics
// answer, as its /readyz has no check with the webhook off),
// from the image build-koordinator.sh made, with its webhook off (the
// WebhookFramework gate: its certificates and webhook configurations are
// not what is under test) and cluster-admin rights (nor is its RBAC).
const koordManagerManifest = `apiVersion: v1
kind: ServiceAccount
metadata:
  name: koord-manager
  namespace: koordinator-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: koord-manager-under-test
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  name: koord-manager
  namespace: koordinator-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: koord-manager
  namespace: koordinator-system
spec:
  replicas: 1
  selector:
    matchLabels: {koord-app: koord-manager}
  template:
    metadata:
      labels: {koord-app: koord-manager}
    spec:
      serviceAccountName: koord-manager
      securityContext:
        runAsNonRoot: true
        seccompProfile: {type: RuntimeDefault}
      containers:
      - name: manager
        image: %s
        imagePullPolicy: Never
        args:
        - --enable-leader-election=true
        - --metrics-addr=:8080
        - --health-probe-addr=:8000
        - --enable-pprof=false
        - --feature-gates=WebhookFramework=false
        - --v=2
        readinessProbe:
          httpGet: {path: /metrics, port: 8080}
          periodSeconds: 2
        securityContext:
          allowPrivilegeEscalation: false
          capabilities: {drop: [ALL]}
`

// koordletFeatureGates turns on what the scenarios watch koordlet do:
// eviction of best-effort Pods by memory use and the system settings
// (both off by default in v1.8.0); CPU suppression is on by default.
const koordletFeatureGates = "BEMemoryEvict=true,SystemConfig=true"

var _ = Describe("beside Koordinator v1.8.0: koord-manager hands over and back, koordlet reads what is written",
	Ordered, describeBesideKoordinator)

// describeBesideKoordinator is the scenario of docs/migration.md with
// Koordinator's programs (docs/testing.md#the-cluster-with-one-real-node-make-test-cluster).
func describeBesideKoordinator() {
	var book *runbook

	BeforeAll(func(ctx SpecContext) {
		By("creating " + namespace + " labelled for the restricted Pod Security level")
		kube.mustRun("create", "namespace", namespace)
		kube.mustRun("label", "namespace", namespace, "pod-security.kubernetes.io/enforce=restricted")
		crds := setting("KOORDINATOR_CRDS")
		DeferCleanup(func() {
			node.StopKoordlet()
			kube.mustRun("delete", "node", differingNode, canaryNode, pendingNode, "--ignore-not-found")
			kube.mustRun("label", "node", node.NodeName(), "node-pool-", "nodeslo-canary-")
			kube.mustRun("delete", "deployment", "koord-manager", "-n", namespace, "--ignore-not-found")
			kube.mustRun("delete", "clusterrolebinding", "koord-manager-under-test", "--ignore-not-found")
			helmHome, err := os.MkdirTemp("", "helm")
			Expect(err).NotTo(HaveOccurred())
			defer func() { _ = os.RemoveAll(helmHome) }()
			_, _ = newHelm(node, helmHome).run("uninstall", helmRelease, "-n", namespace, "--wait")
			kube.mustRun("delete", "-f", crds, "--ignore-not-found")
			// The chart installed this project's NodeSLORollout CRD (with
			// crd.enabled=false too) and kept it (crd.keep); Koordinator's
			// CRDs do not hold it.
			kube.mustRun("delete", "crd", rolloutCRDName, "--ignore-not-found")
			kube.mustRun("delete", "namespace", namespace, "--ignore-not-found", "--timeout=2m")
		})

		By("installing Koordinator's CRDs (its module's config/crd/bases)")
		kube.mustRun("apply", "--server-side", "-f", crds)
		kube.mustRun("wait", "--for=condition=Established", "--timeout=60s", "-f", crds)

		By("running koord-manager with every controller, nodeslo included")
		Expect(node.ImportImage(ctx, setting("KOORD_MANAGER_IMAGE"))).To(Succeed())
		kube.mustRunWithInput(fmt.Sprintf(koordManagerManifest, koordManagerImage()), "apply", "--server-side", "-f", "-")
		applySample()
		converges(func() (string, error) {
			return kube.run("get", "deployment", "koord-manager", "-n", namespace, "-o", "jsonpath={.status.readyReplicas}")
		}).Should(Equal("1"), func() string {
			out, _ := kube.run("logs", "-n", namespace, "deployment/koord-manager", "--tail=40")
			return out
		})
		converges(nodeSLOWriters).Should(ContainElement(koordManagerFieldManager))

		By("running koordlet on the node (host process)")
		Expect(node.StartKoordlet(ctx, nodecluster.KoordletOptions{
			Binary: setting("KOORDLET"), FeatureGates: koordletFeatureGates,
		})).To(Succeed())

		book = readRunbook("docs/migration.md", imageReplacer())
	}, NodeTimeout(10*time.Minute))

	It("koordlet merges the NodeSLO koord-manager wrote", func() {
		converges(koordletSpec).Should(HaveKey("resourceUsedThresholdWithBE"))
	})

	It("hands over from koord-manager as docs/migration.md says, with no NodeSLO write", func() {
		checkHandover(book)
	})

	It("koordlet merges every field the controller writes, for a configuration that sets every section", func() {
		checkKoordletReadsEverything()
	})

	It("koordlet caps the best-effort cgroup's CFS quota with cpuSuppressPolicy cfsQuota, "+
		"and puts it back when disabled", func() {
		checkCPUSuppression()
	})

	It("koordlet writes systemStrategy into /proc/sys/vm, only once a staged rollout reaches the node", func() {
		checkSystemStrategyStaged()
	})

	It("halts a gated rollout when koordlet evicts a best-effort Pod on the canary it reached, "+
		"before a second node is written", func() {
		checkEvictionHalts()
	})

	It("hands back to koord-manager as docs/migration.md says, which writes its own values again", func() {
		checkWayBack(book)
	})
}

// koordManagerFieldManager is the field manager of koord-manager's writes
// (its user agent, koordinator-manager).
const koordManagerFieldManager = "koordinator-manager"

// koordManagerImage is the name build-koordinator.sh gives koord-manager's
// image: it imports under that name.
func koordManagerImage() string { return "localhost/koordinator/koord-manager:v1.8.0" }

// nodeSLOWriters lists the field managers of the node's NodeSLO.
func nodeSLOWriters() ([]string, error) {
	out, err := kube.run("get", "nodeslo", node.NodeName(), "-o", "jsonpath={.metadata.managedFields[*].manager}")
	return strings.Fields(out), err
}

// koordletSpec is the spec of the last NodeSLO koordlet merged, from its
// own log line ("update nodeSLO content: old {...}, new {...}").
func koordletSpec() (map[string]any, error) {
	merged, err := koordletMerged()
	if err != nil {
		return nil, err
	}
	var slo struct {
		Spec map[string]any `json:"spec"`
	}
	if err := json.Unmarshal([]byte(merged), &slo); err != nil {
		return nil, fmt.Errorf("koordlet's merged NodeSLO: %w: %.300s", err, merged)
	}
	return slo.Spec, nil
}

// koordletMerged is the NodeSLO, as JSON, of koordlet's last log line
// "update nodeSLO content: old {...}, new {...}".
func koordletMerged() (string, error) {
	data, err := os.ReadFile(node.KoordletLog())
	if err != nil {
		return "", err
	}
	const marker = "update nodeSLO content: old "
	i := strings.LastIndex(string(data), marker)
	if i < 0 {
		return "", fmt.Errorf("koordlet logged no %q yet", marker)
	}
	line, _, _ := strings.Cut(string(data[i:]), "\n")
	_, merged, ok := strings.Cut(line, ", new ")
	if !ok {
		return "", fmt.Errorf("koordlet's line has no new content: %.200s", line)
	}
	return merged, nil
}

// nodeSLOListVersion is the resourceVersion of a list of every NodeSLO:
// a watch from it sees every write that follows.
func nodeSLOListVersion() string {
	GinkgoHelper()
	client, err := dynamic.NewForConfig(node.RESTConfig())
	Expect(err).NotTo(HaveOccurred())
	list, err := client.Resource(nodeSLOs).List(context.Background(), metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	return list.GetResourceVersion()
}

// nodeSLOWrites watches every NodeSLO from version until done says a
// written object is the last one awaited, and returns the writes each
// NodeSLO saw (the awaited one included), with the field manager of each.
// A watch the apiserver closes (it does when the CRD changes) is opened
// again from the last version seen.
func nodeSLOWrites(from string, done func(name string, spec map[string]any) bool) map[string][]string {
	GinkgoHelper()
	client, err := dynamic.NewForConfig(node.RESTConfig())
	Expect(err).NotTo(HaveOccurred())
	writes := map[string][]string{}
	timeout := time.After(converge)
	last := from
	var watcher watch.Interface
	defer func() {
		if watcher != nil {
			watcher.Stop()
		}
	}()
	for {
		if watcher == nil {
			watcher, err = client.Resource(nodeSLOs).Watch(context.Background(), metav1.ListOptions{ResourceVersion: last})
			Expect(err).NotTo(HaveOccurred())
		}
		var event watch.Event
		var open bool
		select {
		case event, open = <-watcher.ResultChan():
		case <-timeout:
			Fail(fmt.Sprintf("the watch from %s did not see the write awaited; it saw %v", from, writes))
		}
		if !open {
			watcher.Stop()
			watcher = nil
			continue
		}
		Expect(event.Type).NotTo(Equal(watch.Error), "%v", event.Object)
		if event.Type == watch.Bookmark {
			continue
		}
		data, err := json.Marshal(event.Object)
		Expect(err).NotTo(HaveOccurred())
		var slo struct {
			Metadata struct {
				Name            string
				ResourceVersion string
				ManagedFields   []struct{ Manager, Time string }
			} `json:"metadata"`
			Spec map[string]any `json:"spec"`
		}
		Expect(json.Unmarshal(data, &slo)).To(Succeed())
		// The write's author: the field manager with the newest time (RFC
		// 3339 in UTC, so the strings order as the times).
		manager, at := "", ""
		for _, f := range slo.Metadata.ManagedFields {
			if f.Time >= at {
				manager, at = f.Manager, f.Time
			}
		}
		last = slo.Metadata.ResourceVersion
		writes[slo.Metadata.Name] = append(writes[slo.Metadata.Name], fmt.Sprintf("%s by %s@%s", event.Type, manager, at))
		if done(slo.Metadata.Name, slo.Spec) {
			return writes
		}
	}
}

// nodeSLOVersion is the resourceVersion of the NodeSLO of node name: any
// write changes it.
func nodeSLOVersion(name string) string {
	GinkgoHelper()
	return kube.mustRun("get", "nodeslo", name, "-o", "jsonpath={.metadata.resourceVersion}")
}
