package nodecluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// The containerd namespace of the CRI plugin, where the kubelet's images and
// containers live.
const criNamespace = "k8s.io"

// startContainerd starts Debian's containerd with the configuration
// install-node-packages.sh wrote (everything under the cluster directory)
// and imports the locally made sandbox image into the CRI's namespace.
func (c *Cluster) startContainerd(ctx context.Context) error {
	for _, file := range []string{c.layout.ContainerdConfig(), c.layout.PauseImage()} {
		if _, err := os.Stat(file); err != nil {
			return fmt.Errorf("%w: run hack/cluster/install-node-packages.sh %s first", err, c.layout.Dir)
		}
	}
	binary, err := exec.LookPath("containerd")
	if err != nil {
		return fmt.Errorf("%w: run hack/cluster/install-node-packages.sh %s first", err, c.layout.Dir)
	}
	p, err := startProcess(c.layout, "containerd", binary, "--config", c.layout.ContainerdConfig())
	if err != nil {
		return err
	}
	c.processes = append(c.processes, p)
	if err := waitFor(ctx, "containerd", p, time.Minute, socketAccepts(c.layout.ContainerdSocket())); err != nil {
		return err
	}
	out, err := c.ctr(ctx, "images", "import", c.layout.PauseImage())
	if err != nil {
		return fmt.Errorf("importing the sandbox image: %w: %s", err, out)
	}
	return nil
}

// ctr runs containerd's own client on the cluster's containerd, in the CRI's
// namespace.
func (c *Cluster) ctr(ctx context.Context, args ...string) ([]byte, error) {
	args = append([]string{"--address", c.layout.ContainerdSocket(), "--namespace", criNamespace}, args...)
	return exec.CommandContext(ctx, "ctr", args...).CombinedOutput()
}

// ImportImage imports an image archive (an OCI image layout or docker
// save tar, named inside) into the node's containerd, where the kubelet
// finds it without a registry.
func (c *Cluster) ImportImage(ctx context.Context, archive string) error {
	out, err := c.ctr(ctx, "images", "import", archive)
	if err != nil {
		return fmt.Errorf("importing %s: %w: %s", archive, err, out)
	}
	c.opts.Logf("imported %s: %s", archive, out)
	return nil
}
