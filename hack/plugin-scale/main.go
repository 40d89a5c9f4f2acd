// Command plugin-scale measures kubectl-nodeslo on the largest inputs it is
// meant for: 100,000 realistic Nodes (with and without their kubelet
// status) and a ConfigMap of about 1 MiB, the apiserver's limit. It writes
// the inputs into a temporary directory, runs the plugin binary on each,
// and prints wall time, CPU time and peak memory (from the kernel's
// resource usage of the child), so that the figures in the README can be
// reproduced: `make plugin-scale`.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nodeslo/nodeslo-controller/test/fixtures"
)

func main() {
	plugin := flag.String("plugin", "bin/kubectl-nodeslo", "the plugin binary to measure")
	nodes := flag.Int("nodes", 100000, "how many Nodes the nodes files hold")
	sample := flag.String("config", "config/samples/slo-controller-config.yaml", "a realistic ConfigMap")
	flag.Parse()
	if err := run(*plugin, *nodes, *sample); err != nil {
		fmt.Fprintln(os.Stderr, "plugin-scale:", err)
		os.Exit(1)
	}
}

func run(plugin string, nodes int, sample string) error {
	dir, err := os.MkdirTemp("", "plugin-scale-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()

	plain, withStatus := filepath.Join(dir, "nodes.yaml"), filepath.Join(dir, "nodes-status.yaml")
	for path, status := range map[string]bool{plain: false, withStatus: true} {
		if err := writeFile(path, func(f *os.File) error { return fixtures.WriteNodeList(f, nodes, status) }); err != nil {
			return err
		}
	}
	bigConfig := filepath.Join(dir, "configmap-1mib.yaml")
	if err := writeFile(bigConfig, func(f *os.File) error { return fixtures.WriteLargeConfigMap(f, 1<<20) }); err != nil {
		return err
	}

	render := func(config, nodesFile, format string) []string {
		return []string{"render", "-f", config, "--nodes", nodesFile, "-o", format}
	}
	fmt.Printf("%-44s %8s %8s %10s %5s\n", "command", "wall s", "cpu s", "max RSS", "exit")
	for _, m := range []struct {
		label string
		args  []string
	}{
		{fmt.Sprintf("render -o yaml, %d nodes", nodes), render(sample, plain, "yaml")},
		{fmt.Sprintf("render -o json, %d nodes", nodes), render(sample, plain, "json")},
		{fmt.Sprintf("render -o yaml, %d nodes with status", nodes), render(sample, withStatus, "yaml")},
		{"validate, 1 MiB ConfigMap", []string{"validate", "-f", bigConfig}},
		{fmt.Sprintf("render -o json, 1 MiB ConfigMap, %d nodes", nodes), render(bigConfig, plain, "json")},
		{"validate -f /dev/zero", []string{"validate", "-f", "/dev/zero"}},
	} {
		measure(plugin, m.label, m.args)
	}
	return nil
}

func writeFile(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// measure runs the plugin with output discarded and prints its figures.
func measure(plugin, label string, args []string) {
	cmd := exec.Command(plugin, args...)
	cmd.Stdout, cmd.Stderr = nil, nil
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Printf("%-44s could not run: %v\n", label, err)
		return
	}
	usage, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	rss := "?"
	if usage != nil {
		rss = fmt.Sprintf("%d MiB", usage.Maxrss/1024) // Maxrss is in KiB on Linux
	}
	fmt.Printf("%-44s %8.1f %8.1f %10s %5d\n", strings.TrimSpace(label), wall.Seconds(), cpu.Seconds(), rss,
		cmd.ProcessState.ExitCode())
}
