//go:build image

// Package image runs the shipped artifact: the image `make docker-build` (or
// the offline build) makes from the Dockerfile, started by a container
// runtime exactly as config/default's Deployment and the chart's Deployment
// say (their args, securityContext, resources, mounts, probes), against a
// local control plane holding the rest of their manifests. Run it with
// `make test-image`, which builds the image and the tools first.
package image

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

var (
	// root is the repository: the suite renders its config/ and dist/chart.
	root string
	// imageName is the image under test (IMG in the Makefile).
	imageName string
	// podman runs the containers (podman by default).
	podman *containerTool
)

func TestImage(t *testing.T) {
	envtestharness.RunSuite(t, "nodeslo-controller image suite")
}

var _ = BeforeSuite(func() {
	var err error
	root, err = filepath.Abs(filepath.Join("..", ".."))
	Expect(err).NotTo(HaveOccurred())
	imageName = os.Getenv("IMG")
	Expect(imageName).NotTo(BeEmpty(), "IMG names the image to test: run `make test-image`")
	envtestharness.AssetsDir()
	for _, tool := range []string{"bin/kustomize", "bin/helm"} {
		Expect(filepath.Join(root, tool)).To(BeAnExistingFile(), "run `make test-image`: it installs %s first", tool)
	}
	podman = newContainerTool()
	podman.mustRun("image", "exists", imageName)
})

// printFigure prints a measurement on the suite's output: figures are
// reported, never asserted against times.
func printFigure(format string, args ...any) {
	_, _ = fmt.Fprintf(os.Stdout, "figure: "+format+"\n", args...)
}
