//go:build cluster

package cluster

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/test/nodecluster"
)

// command runs one program against the cluster: kubectl, helm or make.
type command struct {
	binary string
	// args go before the caller's (make's variables).
	args []string
	// env is added to this process's; KUBECONFIG names the cluster (kubectl
	// refuses flags before a plugin's name).
	env []string
}

// newKubectl runs the cluster's kubectl with bin/ first on PATH, so that
// `kubectl nodeslo` is the plugin make built.
func newKubectl(cluster *nodecluster.Cluster) *command {
	return &command{
		binary: cluster.Kubectl(),
		env: []string{
			"KUBECONFIG=" + cluster.Kubeconfig(),
			"PATH=" + filepath.Join(root, "bin") + string(os.PathListSeparator) + os.Getenv("PATH"),
		},
	}
}

// newMake runs make in the repository on the cluster: KUBECONFIG set, the
// cluster's kubectl as KUBECTL, IMG the loaded image; make's variables from
// the make that runs this suite are not passed on.
func newMake(cluster *nodecluster.Cluster) *command {
	return &command{
		binary: "make",
		args:   []string{"--no-print-directory", "-C", root, "KUBECTL=" + cluster.Kubectl(), "IMG=" + image},
		env:    []string{"KUBECONFIG=" + cluster.Kubeconfig(), "MAKEFLAGS=", "MAKELEVEL=", "MFLAGS="},
	}
}

// newHelm runs bin/helm on the cluster, with its own cache and configuration.
func newHelm(cluster *nodecluster.Cluster, home string) *command {
	return &command{
		binary: filepath.Join(root, "bin", "helm"),
		env: []string{
			"KUBECONFIG=" + cluster.Kubeconfig(),
			"HELM_CACHE_HOME=" + filepath.Join(home, "cache"),
			"HELM_CONFIG_HOME=" + filepath.Join(home, "config"),
			"HELM_DATA_HOME=" + filepath.Join(home, "data"),
		},
	}
}

// runWithInput returns stdout, and an error that carries stderr.
func (c *command) runWithInput(stdin string, args ...string) (string, error) {
	cmd := exec.Command(c.binary, slices.Concat(c.args, args)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), c.env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	shown := stdout.String()
	if len(shown) > 3000 {
		shown = fmt.Sprintf("(%d bytes)\n", len(shown))
	}
	GinkgoWriter.Printf("$ %s %s\n%s%s", filepath.Base(c.binary), strings.Join(args, " "), shown, stderr.String())
	if err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %w: %s", filepath.Base(c.binary), strings.Join(args, " "), err,
			stderr.String())
	}
	return stdout.String(), nil
}

func (c *command) run(args ...string) (string, error) { return c.runWithInput("", args...) }

func (c *command) mustRun(args ...string) string {
	GinkgoHelper()
	out, err := c.run(args...)
	Expect(err).NotTo(HaveOccurred())
	return out
}

func (c *command) mustRunWithInput(stdin string, args ...string) string {
	GinkgoHelper()
	out, err := c.runWithInput(stdin, args...)
	Expect(err).NotTo(HaveOccurred())
	return out
}
