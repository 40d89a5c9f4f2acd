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
)

// containerTool runs podman (CONTAINER_TOOL) with this machine's flags:
// CONTAINER_TOOL_FLAGS before the command (e.g. --runtime runc) and
// CONTAINER_RUN_FLAGS after `run` (e.g. ulimits within the sandbox's hard
// limits). These say how the host runs containers, not how the manager runs.
type containerTool struct {
	binary    string
	toolFlags []string
	runFlags  []string
}

func newContainerTool() *containerTool {
	GinkgoHelper()
	name := os.Getenv("CONTAINER_TOOL")
	if name == "" {
		name = "podman"
	}
	binary, err := exec.LookPath(name)
	Expect(err).NotTo(HaveOccurred(), "CONTAINER_TOOL %q: install podman and runc (apt-get install -y podman runc)", name)
	return &containerTool{
		binary:    binary,
		toolFlags: strings.Fields(os.Getenv("CONTAINER_TOOL_FLAGS")),
		runFlags:  strings.Fields(os.Getenv("CONTAINER_RUN_FLAGS")),
	}
}

// run returns stdout, and an error that carries stderr.
func (t *containerTool) run(args ...string) (string, error) {
	cmd := exec.Command(t.binary, slices.Concat(t.toolFlags, args)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	GinkgoWriter.Printf("$ %s %s\n%s", t.binary, strings.Join(args, " "), stderr.String())
	if err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %w: %s", t.binary, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

func (t *containerTool) mustRun(args ...string) string {
	GinkgoHelper()
	out, err := t.run(args...)
	Expect(err).NotTo(HaveOccurred())
	return out
}

// output streams a command's stdout to a file (an exported filesystem).
func (t *containerTool) output(path string, args ...string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	cmd := exec.Command(t.binary, slices.Concat(t.toolFlags, args)...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = f, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w: %s", t.binary, strings.Join(args, " "), err, stderr.String())
	}
	return nil
}
