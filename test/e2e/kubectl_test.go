//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// kubectl runs the kubectl binary against the test cluster, with bin/ first
// on PATH so that `kubectl nodeslo` finds the freshly built plugin.
type kubectl struct {
	binary     string
	kubeconfig string
	path       string
}

// newKubectl prefers the kubectl of the envtest store, the version of the
// apiserver, and falls back to the one on PATH.
func newKubectl(kubeconfig, pluginDir string) *kubectl {
	binary, err := localcluster.KubectlBinary(envtestharness.AssetsDir())
	Expect(err).NotTo(HaveOccurred())
	path := pluginDir + string(os.PathListSeparator) + os.Getenv("PATH")
	return &kubectl{binary: binary, kubeconfig: kubeconfig, path: path}
}

// run returns stdout, and an error that carries stderr.
func (k *kubectl) run(args ...string) (string, error) {
	return k.runWithInput("", args...)
}

func (k *kubectl) runWithInput(stdin string, args ...string) (string, error) {
	// --kubeconfig goes last: kubectl refuses flags before a plugin's name.
	cmd := exec.Command(k.binary, slices.Concat(args, []string{"--kubeconfig", k.kubeconfig})...)
	cmd.Env = append(os.Environ(), "PATH="+k.path)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	GinkgoWriter.Printf("$ kubectl %s\n%s%s", strings.Join(args, " "), stdout.String(), stderr.String())
	if err != nil {
		return stdout.String(), fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// mustRun fails the spec when kubectl fails.
func (k *kubectl) mustRun(args ...string) string {
	GinkgoHelper()
	out, err := k.run(args...)
	Expect(err).NotTo(HaveOccurred())
	return out
}
