package localcluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// KubectlBinary returns the kubectl of the control-plane binaries in
// assetsDir, which matches the apiserver's version, or else the one on PATH.
func KubectlBinary(assetsDir string) (string, error) {
	binary := filepath.Join(assetsDir, "kubectl")
	if _, err := os.Stat(binary); err == nil {
		return binary, nil
	}
	binary, err := exec.LookPath("kubectl")
	if err != nil {
		return "", fmt.Errorf("no kubectl in %q nor on PATH: %w", assetsDir, err)
	}
	return binary, nil
}
