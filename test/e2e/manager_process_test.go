//go:build e2e

package e2e

import (
	"net/http"
	"os"
	"os/exec"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// managerProcess is bin/manager as a child process in its own process group.
type managerProcess struct {
	*localcluster.Process
	probeAddr   string
	metricsAddr string
}

// startManager runs the manager with the flags of the Deployment (leader
// election on with the deployed Lease timings, HTTPS metrics) on free
// loopback ports, then the extra flags.
func startManager(binary, kubeconfig string, extra ...string) *managerProcess {
	GinkgoHelper()
	args := append(append([]string{"--leader-elect"}, deployedLeaseArgs()...), extra...)
	return startManagerWithArgs(binary, kubeconfig, args)
}

// startManagerWithArgs runs the manager with args, followed by what a pod
// would not need (the flag given last wins): free loopback ports for the
// probes and metrics, and the Lease's namespace, which in a pod is its own.
func startManagerWithArgs(binary, kubeconfig string, args []string) *managerProcess {
	GinkgoHelper()
	addrs, err := localcluster.FreeLocalAddresses(2)
	Expect(err).NotTo(HaveOccurred())
	probeAddr, metricsAddr := addrs[0], addrs[1]
	cmd := exec.Command(binary, append(slices.Clone(args),
		"--leader-election-namespace="+namespace,
		"--health-probe-bind-address="+probeAddr,
		"--metrics-bind-address="+metricsAddr,
	)...)
	// Only the given kubeconfig: nothing from the environment may grant
	// the manager more than the ServiceAccount has.
	cmd.Env = []string{"KUBECONFIG=" + kubeconfig, "HOME=" + os.TempDir()}
	cmd.Stdout, cmd.Stderr = GinkgoWriter, GinkgoWriter
	process, err := localcluster.StartProcess(cmd)
	Expect(err).NotTo(HaveOccurred())
	return &managerProcess{Process: process, probeAddr: probeAddr, metricsAddr: metricsAddr}
}

// waitUntilLeading waits for /readyz and for the manager to hold the lease.
func (p *managerProcess) waitUntilLeading(kube *kubectl) {
	GinkgoHelper()
	// Longer than the default: the process must start, become ready and win the Lease.
	Eventually(func(g Gomega) {
		g.Expect(p.Running()).To(BeTrue(), "the manager exited; its log is above")
		resp, err := http.Get("http://" + p.probeAddr + "/readyz")
		g.Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
		holder, err := kube.run("get", "lease", leaseName, "-n", namespace, "-o", "jsonpath={.spec.holderIdentity}")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(holder).NotTo(BeEmpty())
	}).WithTimeout(60 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
}
