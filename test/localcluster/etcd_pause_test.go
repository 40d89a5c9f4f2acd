package localcluster

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

// TestAllThreadsStoppedFollowsSIGSTOPAndSIGCONT guards PauseEtcd's wait: it
// must see a process's threads stopped after SIGSTOP, and not before, or
// PauseEtcd would return while etcd still answers (or never return). A
// sleep process stands in for etcd.
func TestAllThreadsStoppedFollowsSIGSTOPAndSIGCONT(t *testing.T) {
	g := NewWithT(t)
	cmd := exec.Command("sleep", "60")
	g.Expect(cmd.Start()).To(Succeed())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	stopped := func() bool { return allThreadsStopped(pid) }
	g.Expect(stopped()).To(BeFalse(), "a running process reported stopped")
	g.Expect(syscall.Kill(pid, syscall.SIGSTOP)).To(Succeed())
	g.Eventually(stopped).WithTimeout(10 * time.Second).WithPolling(time.Millisecond).Should(BeTrue())
	g.Expect(syscall.Kill(pid, syscall.SIGCONT)).To(Succeed())
	g.Eventually(stopped).WithTimeout(10 * time.Second).WithPolling(time.Millisecond).Should(BeFalse())
}
