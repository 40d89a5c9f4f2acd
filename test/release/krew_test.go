//go:build release

package release

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	apimachineryversion "k8s.io/apimachinery/pkg/version"

	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// krew installs the plugin from the release's manifest and this platform's
// archive (offline: --archive instead of the manifest's URL, whose SHA-256
// krew still checks) into a scratch KREW_ROOT, and `kubectl nodeslo`, found
// by kubectl on the PATH as krew links it, reports the release's version.
func TestKrewInstallsThePluginOfTheRelease(t *testing.T) {
	r := releaseUnderTest(t)
	krew := tool(t, "KREW")
	kubectl, err := localcluster.KubectlBinary(os.Getenv("KUBEBUILDER_ASSETS"))
	if err != nil {
		t.Fatal(err)
	}
	ext := tarGz
	if runtime.GOOS == "windows" {
		ext = ".zip"
	}
	archive := r.path(r.pluginArchive(runtime.GOOS, runtime.GOARCH, ext))

	krewRoot := t.TempDir()
	env := []string{
		"KREW_ROOT=" + krewRoot,
		"KREW_NO_UPGRADE_CHECK=1",
		// Only krew's bin directory and kubectl's: the plugin must come from krew.
		"PATH=" + filepath.Join(krewRoot, "bin") + string(os.PathListSeparator) + filepath.Dir(kubectl),
		"HOME=" + t.TempDir(),
	}
	runCommand(t, env, krew, "install", "--manifest="+r.path("nodeslo.yaml"), "--archive="+archive)
	// krew records what it installed in a receipt (krew list needs the
	// index, which an offline install has not cloned).
	if _, err := os.Stat(filepath.Join(krewRoot, "receipts", "nodeslo.yaml")); err != nil {
		t.Errorf("krew kept no receipt of the install: %v", err)
	}
	// The manifest's files: krew installs the licence beside the binary.
	if _, err := os.Stat(filepath.Join(krewRoot, "store", "nodeslo", r.version, "LICENSE")); err != nil {
		t.Errorf("krew did not install the licence with the plugin: %v", err)
	}

	line := runCommand(t, env, kubectl, "nodeslo", "version")
	if !strings.HasPrefix(line, "kubectl-nodeslo "+r.version+" (revision ") {
		t.Errorf("kubectl nodeslo version printed %q, want kubectl-nodeslo %s (revision ...)", line, r.version)
	}
	var info apimachineryversion.Info
	if err := json.Unmarshal([]byte(runCommand(t, env, kubectl, "nodeslo", "version", "-o", "json")), &info); err != nil {
		t.Fatal(err)
	}
	if info.GitVersion != r.version || info.GitCommit == "" || info.GitCommit == "unknown" {
		t.Errorf("kubectl nodeslo version -o json = %+v, want gitVersion %s and a commit", info, r.version)
	}
	if flag := runCommand(t, env, kubectl, "nodeslo", "--version"); flag != line {
		t.Errorf("kubectl nodeslo --version printed %q, version printed %q", flag, line)
	}
}
