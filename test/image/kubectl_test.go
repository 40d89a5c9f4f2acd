//go:build image

package image

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// kubectl runs the envtest store's kubectl (the apiserver's version) as
// the administrator of one control plane.
type kubectl struct {
	binary, kubeconfig string
}

func newKubectl(kubeconfig string) *kubectl {
	GinkgoHelper()
	binary, err := localcluster.KubectlBinary(os.Getenv("KUBEBUILDER_ASSETS"))
	Expect(err).NotTo(HaveOccurred())
	return &kubectl{binary: binary, kubeconfig: kubeconfig}
}

// runWithInput returns stdout, and an error that carries stderr.
func (k *kubectl) runWithInput(stdin string, args ...string) (string, error) {
	cmd := exec.Command(k.binary, slices.Concat(args, []string{"--kubeconfig", k.kubeconfig})...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	shown := stdout.String()
	if len(shown) > 2000 {
		shown = fmt.Sprintf("(%d bytes)\n", len(shown))
	}
	if shown != "" && !strings.HasSuffix(shown, "\n") {
		shown += "\n" // a jsonpath value, so that the next line starts on its own
	}
	GinkgoWriter.Printf("$ kubectl %s\n%s%s", strings.Join(args, " "), shown, stderr.String())
	if err != nil {
		return stdout.String(), fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

func (k *kubectl) run(args ...string) (string, error) { return k.runWithInput("", args...) }

func (k *kubectl) mustRun(args ...string) string {
	GinkgoHelper()
	out, err := k.run(args...)
	Expect(err).NotTo(HaveOccurred())
	return out
}

func (k *kubectl) mustRunWithInput(stdin string, args ...string) string {
	GinkgoHelper()
	out, err := k.runWithInput(stdin, args...)
	Expect(err).NotTo(HaveOccurred())
	return out
}
