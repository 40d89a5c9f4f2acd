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
	"sigs.k8s.io/yaml"

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
	// The completer is installed beside the plugin; linked as the manifest's
	// caveats say, kubectl completes the plugin's commands through it.
	linkCompleterAsTheCaveatsSay(t, env, r.path("nodeslo.yaml"))
	completions := runCommand(t, env, kubectl, "__complete", "nodeslo", "")
	for _, want := range []string{"explain\t", "summary\t", "rollout\t"} {
		if !strings.Contains(completions, want) {
			t.Errorf("kubectl __complete nodeslo '' lacks %q:\n%s", want, completions)
		}
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

// linkCompleterAsTheCaveatsSay runs the ln command of the manifest's caveats.
func linkCompleterAsTheCaveatsSay(t *testing.T, env []string, manifest string) {
	t.Helper()
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var plugin struct {
		Spec struct {
			Caveats string `json:"caveats"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &plugin); err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(plugin.Spec.Caveats, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "ln ") {
			// The shell's own tools (dirname, readlink, ln) are on a user's PATH.
			var path string
			for _, e := range env {
				if p, ok := strings.CutPrefix(e, "PATH="); ok {
					path = p
				}
			}
			runCommand(t, append(env, "PATH="+path+":/usr/bin:/bin"), "/bin/sh", "-c", line)
			return
		}
	}
	t.Fatalf("the manifest's caveats have no ln command:\n%s", plugin.Spec.Caveats)
}
