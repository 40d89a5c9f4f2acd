// Package completer is kubectl_complete-nodeslo, the executable kubectl
// runs to complete `kubectl nodeslo ...` (kubectl 1.26 and later): it runs
// the plugin's hidden __complete command, cobra's, with kubectl's
// arguments, and hands its answer back (docs/kubectl-nodeslo.md#completion).
// It is a program of its own, and not a script, so that it works on
// Windows too, and a small one, so that the release archives stay small.
package completer

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// PluginName is the plugin's executable, which the completer runs.
const PluginName = "kubectl-nodeslo"

// Plugin finds the plugin: beside the completer's own file (its target,
// when it is a link: krew's store), else on the PATH.
func Plugin(self string) (string, error) {
	name := PluginName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if resolved, err := filepath.EvalSymlinks(self); err == nil {
		beside := filepath.Join(filepath.Dir(resolved), name)
		if info, err := os.Stat(beside); err == nil && !info.IsDir() {
			return beside, nil
		}
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("kubectl_complete-nodeslo: %s is neither beside it nor on the PATH: %w", name, err)
	}
	return path, nil
}

// Run completes args (kubectl's: the words after `kubectl nodeslo`, the
// last one being completed) with the plugin at plugin and returns the exit
// status.
func Run(plugin string, args []string, stdout, stderr io.Writer) int {
	cmd := exec.Command(plugin, append([]string{"__complete"}, args...)...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		if exit, ok := errors.AsType[*exec.ExitError](err); ok {
			return exit.ExitCode()
		}
		_, _ = fmt.Fprintln(stderr, "kubectl_complete-nodeslo: "+err.Error())
		return 1
	}
	return 0
}
