//go:build e2e

package e2e

import (
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// managerProcess is bin/manager as a child process in its own process group.
type managerProcess struct {
	cmd         *exec.Cmd
	exited      chan struct{}
	probeAddr   string
	metricsAddr string
}

// startManager runs the manager with the flags of the Deployment (leader
// election on, HTTPS metrics) on free loopback ports. Pdeathsig kills it if
// the test binary dies before AfterSuite runs.
func startManager(binary, kubeconfig string) *managerProcess {
	GinkgoHelper()
	probeAddr, err := localcluster.FreeLocalAddress()
	Expect(err).NotTo(HaveOccurred())
	metricsAddr, err := localcluster.FreeLocalAddress()
	Expect(err).NotTo(HaveOccurred())
	cmd := exec.Command(binary,
		"--leader-elect",
		"--leader-election-namespace="+namespace,
		"--health-probe-bind-address="+probeAddr,
		"--metrics-bind-address="+metricsAddr,
	)
	// Only the given kubeconfig: nothing from the environment may grant
	// the manager more than the ServiceAccount has.
	cmd.Env = []string{"KUBECONFIG=" + kubeconfig, "HOME=" + os.TempDir()}
	cmd.Stdout, cmd.Stderr = GinkgoWriter, GinkgoWriter
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	Expect(cmd.Start()).To(Succeed())
	p := &managerProcess{cmd: cmd, exited: make(chan struct{}), probeAddr: probeAddr, metricsAddr: metricsAddr}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	return p
}

// waitUntilLeading waits for /readyz and for the manager to hold the lease.
func (p *managerProcess) waitUntilLeading(kube *kubectl) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		g.Expect(p.running()).To(BeTrue(), "the manager exited; its log is above")
		resp, err := http.Get("http://" + p.probeAddr + "/readyz")
		g.Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
		holder, err := kube.run("get", "lease", leaseName, "-n", namespace, "-o", "jsonpath={.spec.holderIdentity}")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(holder).NotTo(BeEmpty())
	}).WithTimeout(60 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
}

func (p *managerProcess) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM to the process group, then SIGKILL after a grace period.
func (p *managerProcess) stop() {
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(15 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
}
