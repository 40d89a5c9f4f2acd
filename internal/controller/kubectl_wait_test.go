package controller_test

import (
	"context"
	"os/exec"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// kubectlWait runs `kubectl wait` on the NodeSLORollout for condition, as
// an operator or a pipeline does (docs/rollout.md#conditions), with the
// kubectl of the envtest store; it returns kubectl's output and error (an
// *exec.ExitError when kubectl failed, at its timeout for one).
func kubectlWait(ctx context.Context, condition, timeout string) (string, error) {
	bin, err := localcluster.KubectlBinary(envtestharness.AssetsDir())
	Expect(err).NotTo(HaveOccurred())
	out, err := exec.CommandContext(ctx, bin, "--kubeconfig", kubeconfig, "wait", "-n", configNamespace,
		"nodeslorollout/"+configName, "--for=condition="+condition, "--timeout="+timeout).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}
