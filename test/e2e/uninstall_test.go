//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

// crdName is the NodeSLO CRD's, rolloutCRDName the NodeSLORollout CRD's.
const (
	crdName        = "nodeslos.slo.koordinator.sh"
	rolloutCRDName = "nodeslorollouts.nodeslo.koordinator.sh"
)

// keptNodeSLOs is how many NodeSLOs the uninstall specs create and count.
const keptNodeSLOs = 3

// Every way of removing the controller (docs/install.md, "Uninstall") keeps
// both CRDs, and so every NodeSLO the node agents read and the
// NodeSLORollout, and Koordinator's namespace with what else is in it, the
// ConfigMap included; only DELETE_CRD=true deletes the CRDs. Each removes the
// ConfigMap's deletion policy, so that the ConfigMap can be deleted
// afterwards without the allow-delete annotation. The specs run on a control plane of their
// own, without the CRDs at first (helm installs them), and with stand-ins for cert-manager's CRDs so that
// dist/install.yaml's Issuer and Certificate apply. Nothing runs the
// manager: the NodeSLOs are created here, and only counted.
var _ = Describe("uninstalling", Ordered, func() {
	var (
		uninstallKube *kubectl
		uninstallHelm *helm
		kubeconfig    string
	)

	// countNodeSLOs counts the NodeSLOs; an error when there is no CRD.
	countNodeSLOs := func() (int, error) {
		out, err := uninstallKube.run("get", "nodeslo", "-o", "name")
		return len(strings.Fields(out)), err
	}
	// expectEverythingKept checks both CRDs, the NodeSLOs and the namespace
	// with Koordinator's object and the ConfigMap are all still there, and
	// the controller and its deletion policy not.
	expectEverythingKept := func() {
		GinkgoHelper()
		uninstallKube.mustRun("get", "crd", crdName, rolloutCRDName)
		Expect(countNodeSLOs()).To(Equal(keptNodeSLOs), "NodeSLOs after the uninstall")
		uninstallKube.mustRun("get", "configmap", koordinatorObject, configMapName, "-n", namespace)
		Expect(uninstallKube.mustRun("get", "deployments", "-n", namespace, "-o", "name")).To(BeEmpty(),
			"the controller is removed")
		Expect(uninstallKube.mustRun("get", "validatingadmissionpolicies,validatingadmissionpolicybindings",
			"-o", "name")).NotTo(ContainSubstring(deletionPolicy), "the ConfigMap's deletion policy is removed")
	}
	runMake := func(args ...string) string {
		GinkgoHelper()
		cmd := exec.Command("make", append([]string{"--no-print-directory", "-C", root,
			"KUBECTL=" + uninstallKube.binary, "IMG=nodeslo-controller:e2e"}, args...)...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "MAKEFLAGS=", "MAKELEVEL=", "MFLAGS=")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		GinkgoWriter.Printf("$ make %s\n%s", strings.Join(args, " "), out.String())
		Expect(err).NotTo(HaveOccurred(), "make %s", strings.Join(args, " "))
		return out.String()
	}

	BeforeAll(func() {
		By("starting a control plane without the CRDs, with " + namespace + " and an object of Koordinator's in it")
		cluster := envtestharness.Start(envtestharness.Options{CRDDir: GinkgoT().TempDir()})
		work := GinkgoT().TempDir()
		kubeconfig = filepath.Join(work, "admin.kubeconfig")
		Expect(os.WriteFile(kubeconfig, cluster.AdminKubeconfig, 0o600)).To(Succeed())
		uninstallKube = newKubectl(kubeconfig, filepath.Join(root, "bin"))
		uninstallHelm = newHelm(filepath.Join(root, "bin", "helm"), kubeconfig, filepath.Join(work, "helm"))
		uninstallKube.mustRun("create", "namespace", namespace)
		uninstallKube.mustRun("create", "configmap", koordinatorObject, "-n", namespace)
		uninstallKube.mustRun("create", "configmap", configMapName, "-n", namespace,
			"--from-literal=cpu-burst-config={}")
		uninstallKube.mustRunWithInput(certManagerStandIns, "apply", "--server-side", "-f", "-")
	})

	It("with helm uninstall keeps both CRDs (crd.keep) and every NodeSLO", func() {
		uninstallHelm.mustRun("install", helmRelease, "dist/chart", "-n", namespace,
			"--set", chartImage, "--set", "webhook.enabled=false")
		uninstallKube.mustRunWithInput(nodeSLOs(keptNodeSLOs), "create", "-f", "-")
		uninstallHelm.mustRun("uninstall", helmRelease, "-n", namespace, "--wait")
		expectEverythingKept()
	})

	It("with make undeploy keeps the CRD, every NodeSLO and the namespace", func() {
		runMake("deploy")
		uninstallKube.mustRun("get", "deployment", deployment, "-n", namespace)
		Expect(runMake("undeploy")).To(ContainSubstring("keeping the CRD and every NodeSLO"))
		expectEverythingKept()
	})

	It("with make uninstall keeps the CRD unless DELETE_CRD=true", func() {
		Expect(runMake("uninstall")).To(ContainSubstring("keeping the CRD and every NodeSLO"))
		expectEverythingKept()
	})

	It("with kubectl delete -f dist/install.yaml keeps the CRD (dist/crds.yaml), every NodeSLO and the namespace", func() {
		uninstallKube.mustRun("apply", "--server-side", "-f", filepath.Join(root, "dist", "crds.yaml"),
			"-f", filepath.Join(root, "dist", "install.yaml"))
		uninstallKube.mustRun("get", "deployment", deployment, "-n", namespace)
		uninstallKube.mustRun("delete", "-f", filepath.Join(root, "dist", "install.yaml"), "--wait")
		expectEverythingKept()
	})

	It("deletes both CRDs, and with them every NodeSLO, when asked: make undeploy DELETE_CRD=true", func() {
		runMake("deploy")
		Expect(runMake("undeploy", "DELETE_CRD=true")).To(ContainSubstring("deleting the CRD"))
		Eventually(func() (string, error) {
			return uninstallKube.run("get", "crd", crdName, rolloutCRDName, "--ignore-not-found", "-o", "name")
		}).Should(BeEmpty())
		_, err := countNodeSLOs()
		Expect(err).To(HaveOccurred(), "NodeSLOs without their CRD")
		uninstallKube.mustRun("get", "configmap", koordinatorObject, configMapName, "-n", namespace)
	})
})

// koordinatorObject stands for what Koordinator keeps in its namespace.
const koordinatorObject = "koordlet-config"

// deletionPolicy is in the names of the ConfigMap's deletion policy and its
// binding (docs/behaviour.md#deleting-the-configmap).
const deletionPolicy = "nodeslo-controller-configmap-deletion-policy"

// certManagerStandIns are CRDs of cert-manager's Issuer and Certificate
// that accept any content: the control plane has no cert-manager, and
// dist/install.yaml's objects of those kinds must apply and delete.
var certManagerStandIns = certManagerCRD("Issuer", "issuers") + "\n---\n" +
	certManagerCRD("Certificate", "certificates")

func certManagerCRD(kind, plural string) string {
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %[2]s.cert-manager.io
spec:
  group: cert-manager.io
  names: {kind: %[1]s, listKind: %[1]sList, plural: %[2]s, singular: %[3]s}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`, kind, plural, strings.ToLower(kind))
}

// nodeSLOs is a List of n empty NodeSLOs, uninstall-0 to uninstall-<n-1>.
func nodeSLOs(n int) string {
	items := make([]string, 0, n)
	for i := range n {
		items = append(items, fmt.Sprintf(
			`{"apiVersion": "slo.koordinator.sh/v1alpha1", "kind": "NodeSLO", "metadata": {"name": "uninstall-%d"}}`, i))
	}
	return `{"apiVersion": "v1", "kind": "List", "items": [` + strings.Join(items, ", ") + `]}`
}
