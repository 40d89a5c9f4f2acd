package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The version and revision stamped into the manager binary the tests run,
// as make build stamps them through the linker.
const (
	stampedVersion  = "v9.8.7-3-gabcdef0"
	stampedRevision = "abcdef0123456789"
)

var (
	builtManager     string
	builtManagerErr  error
	buildManagerOnce sync.Once
)

// managerBinary builds this package once for all the tests that run the
// manager as a process (a link is most of their time), stamped as make
// build stamps it. The binary lives until the test process ends.
func managerBinary(t *testing.T) string {
	t.Helper()
	buildManagerOnce.Do(func() {
		dir, err := os.MkdirTemp("", "manager-test-")
		if err != nil {
			builtManagerErr = err
			return
		}
		builtManager = filepath.Join(dir, "manager")
		pkg := "github.com/nodeslo/nodeslo-controller/internal/version"
		out, err := exec.Command("go", "build", "-o", builtManager, "-ldflags",
			"-w -X "+pkg+".version="+stampedVersion+" -X "+pkg+".revision="+stampedRevision, ".").CombinedOutput()
		if err != nil {
			builtManagerErr = fmt.Errorf("%w\n%s", err, out)
		}
	})
	if builtManagerErr != nil {
		t.Fatalf("go build: %v", builtManagerErr)
	}
	return builtManager
}

// TestMain removes the binary managerBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtManager != "" {
		_ = os.RemoveAll(filepath.Dir(builtManager))
	}
	os.Exit(code)
}
