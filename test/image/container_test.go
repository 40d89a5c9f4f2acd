//go:build image

package image

import (
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// container is one run of the image, started detached so that its exit
// code and logs can be read after it ends.
type container struct {
	name    string
	started time.Time
}

// startContainer runs the image with flags before it and args after it; the
// container (and its logs, on failure) are removed when the spec tree ends.
func startContainer(name string, flags, args []string) *container {
	GinkgoHelper()
	_, _ = podman.run("rm", "--force", "--ignore", name) // left over from an interrupted run
	c := &container{name: name, started: time.Now()}
	podman.mustRun(slices.Concat([]string{"run", "--detach", "--name=" + name, "--hostname=" + name},
		podman.runFlags, flags, []string{imageName}, args)...)
	DeferCleanup(func() {
		logs, _ := podman.run("logs", name)
		GinkgoWriter.Printf("--- logs of container %s ---\n%s--- end of logs ---\n", name, logs)
		_, _ = podman.run("rm", "--force", "--time=0", name)
	})
	return c
}

// logs are the container's output, stdout and stderr (where the manager
// logs) together.
func (c *container) logs() string {
	GinkgoHelper()
	out, err := exec.Command(podman.binary, slices.Concat(podman.toolFlags, []string{"logs", c.name})...).
		CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "podman logs %s: %s", c.name, out)
	return string(out)
}

func (c *container) running() bool {
	out, err := podman.run("inspect", "--format={{.State.Running}}", c.name)
	return err == nil && strings.TrimSpace(out) == "true"
}

// waitReady waits until url answers 200, as a readiness probe, and prints
// how long that took from the container's start.
func (c *container) waitReady(url string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		if !c.running() {
			StopTrying(fmt.Sprintf("container %s exited; its logs follow the spec", c.name)).Now()
		}
		g.Expect(httpStatus(url)).To(Equal(200), "GET %s", url)
	}).WithTimeout(converge).WithPolling(100 * time.Millisecond).Should(Succeed())
	printFigure("container %s: start to ready (%s) %v", c.name, url, time.Since(c.started).Round(time.Millisecond))
}

// stop sends SIGTERM and, after grace, SIGKILL (podman stop, as a kubelet
// does); it returns the time from SIGTERM to exit.
func (c *container) stop(grace time.Duration) time.Duration {
	GinkgoHelper()
	start := time.Now()
	podman.mustRun("stop", fmt.Sprintf("--time=%d", int(grace.Seconds())), c.name)
	return time.Since(start)
}

func (c *container) exitCode() int {
	GinkgoHelper()
	out := podman.mustRun("inspect", "--format={{.State.ExitCode}}", c.name)
	code, err := strconv.Atoi(strings.TrimSpace(out))
	Expect(err).NotTo(HaveOccurred())
	return code
}
