package completer

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// writeFakePlugin writes, into dir, a kubectl-nodeslo that prints its
// arguments one a line and exits 3.
func writeFakePlugin(t *testing.T, dir string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake plugin is a shell script")
	}
	path := filepath.Join(dir, PluginName)
	script := "#!/bin/sh\nfor a in \"$@\"; do echo \"[$a]\"; done\nexit 3\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// kubectl runs the completer with the words after `kubectl nodeslo`, the
// last (possibly empty) being completed: the plugin gets them after
// __complete, and its answer and exit status come back unchanged.
func TestRunPassesKubectlsWordsToComplete(t *testing.T) {
	plugin := writeFakePlugin(t, t.TempDir())
	var out, errOut bytes.Buffer
	code := Run(plugin, []string{"explain", "--context", "prod", ""}, &out, &errOut)
	if want := "[__complete]\n[explain]\n[--context]\n[prod]\n[]\n"; out.String() != want || code != 3 {
		t.Errorf("exit %d, stdout %q, want %q", code, out.String(), want)
	}
}

// Installed by krew, the completer is a link in ~/.krew/bin to the store,
// where the plugin is: it is found there, not on the PATH.
func TestPluginIsFoundBesideTheLinksTarget(t *testing.T) {
	store, bin := t.TempDir(), t.TempDir()
	plugin := writeFakePlugin(t, store)
	self := filepath.Join(store, "kubectl_complete-nodeslo")
	if err := os.WriteFile(self, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(bin, "kubectl_complete-nodeslo")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", "")
	if got, err := Plugin(link); err != nil || got != plugin {
		t.Errorf("got %q, %v; want %q", got, err, plugin)
	}
	if _, err := Plugin(filepath.Join(bin, "elsewhere")); err == nil {
		t.Error("no plugin beside it nor on the PATH, and no error")
	}
}
