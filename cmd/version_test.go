package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The manager built with the version stamped in, as make build does,
// reports it on --version and on its first log line.
func TestManagerReportsTheStampedVersion(t *testing.T) {
	stamped, revision := stampedVersion, stampedRevision
	binary := managerBinary(t)

	out, err := exec.Command(binary, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	want := "nodeslo-controller " + stamped + " (revision " + revision + ", " + runtime.Version() + ", " +
		runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	if string(out) != want {
		t.Errorf("--version printed %q, want %q", out, want)
	}

	// Without a cluster to reach the manager exits, after its first line.
	start := exec.Command(binary, "--zap-encoder=json")
	start.Env = []string{"HOME=" + t.TempDir(), "KUBECONFIG=" + filepath.Join(t.TempDir(), "none")}
	out, err = start.CombinedOutput()
	if err == nil {
		t.Fatalf("the manager started without a cluster:\n%s", out)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	for _, field := range []string{`"msg":"nodeslo-controller"`, `"version":"` + stamped + `"`,
		`"revision":"` + revision + `"`, `"goVersion":"` + runtime.Version() + `"`} {
		if !strings.Contains(first, field) {
			t.Errorf("the first log line %q lacks %s", first, field)
		}
	}
}
