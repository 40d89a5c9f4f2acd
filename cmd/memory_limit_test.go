package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The manager sets its soft memory limit (GOMEMLIMIT) to 90 % of the
// container's limit, which the Deployment passes through the downward API,
// unless GOMEMLIMIT is set; it logs the limit in force, and a malformed
// limit stops it with the variable named.
func TestManagerCollectsGarbageBeforeTheContainersMemoryLimit(t *testing.T) {
	binary := managerBinary(t)
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"the container's 512Mi", []string{"CONTAINER_MEMORY_LIMIT=536870912"},
			`"msg":"Soft memory limit","bytes":483183810,"from":"CONTAINER_MEMORY_LIMIT"`},
		{"GOMEMLIMIT wins", []string{"CONTAINER_MEMORY_LIMIT=536870912", "GOMEMLIMIT=300MiB"},
			`"msg":"Soft memory limit","bytes":314572800,"from":"GOMEMLIMIT"`},
		{"a malformed limit", []string{"CONTAINER_MEMORY_LIMIT=512Mi"}, `"msg":"Cannot set the soft memory limit",` +
			`"error":"CONTAINER_MEMORY_LIMIT=\"512Mi\": not a positive number of bytes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Without a cluster to reach the manager exits after set-up.
			start := exec.Command(binary, "--zap-encoder=json")
			start.Env = append([]string{"HOME=" + t.TempDir(), "KUBECONFIG=" + filepath.Join(t.TempDir(), "none")},
				tc.env...)
			out, _ := start.CombinedOutput()
			if !strings.Contains(string(out), tc.want) {
				t.Errorf("the manager's log lacks %s:\n%s", tc.want, out)
			}
		})
	}
}
