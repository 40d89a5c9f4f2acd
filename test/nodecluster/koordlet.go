package nodecluster

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// KoordletOptions are what a scenario chooses of koordlet's flags.
type KoordletOptions struct {
	// Binary is koordlet (hack/cluster/build-koordinator.sh).
	Binary string
	// FeatureGates is koordlet's --feature-gates, e.g.
	// "BEMemoryEvict=true,SystemConfig=true".
	FeatureGates string
}

// StartKoordlet runs Koordinator's node agent on the node as a host process
// (its DaemonSet's hostMode: agent_mode=hostMode, NODE_NAME), with the
// administrator's kubeconfig (koordlet's RBAC is not under test) and every
// path it writes under the cluster directory, so that Stop leaves nothing:
//
//   - its cgroup root is KoordletCgroupRoot, a directory of links, one per
//     cgroup v1 hierarchy, to the kubelet's cgroup root in it: koordlet
//     looks for kubepods/ right under each hierarchy, and the kubelet's pods
//     are under /nodeslo-cluster (cgroupRoot);
//   - the CRI socket is the cluster's containerd (it stops containers to
//     evict);
//   - its metric store, audit log, checkpoints and sockets are under
//     <dir>/koordlet;
//   - it finds an lscpu of the cluster's first on its PATH (lscpuShim).
//
// It waits until koordlet serves its metrics.
func (c *Cluster) StartKoordlet(ctx context.Context, opts KoordletOptions) error {
	dir := c.layout.KoordletDir()
	cgroupLinks := c.layout.KoordletCgroupRoot()
	if err := linkCgroupHierarchies(cgroupLinks); err != nil {
		return err
	}
	for _, sub := range []string{"var-run", "run", "metric-data", "audit", "prediction", "xpu", "bin", "hookserver.d"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "lscpu"), []byte(lscpuShim), 0o755); err != nil {
		return err
	}
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", ports[0])
	args := []string{
		"--kubeconfig=" + c.Kubeconfig(),
		"--addr=" + addr,
		"--enable-pprof=false",
		"--cgroup-root-dir=" + cgroupLinks + "/",
		"--containerd-endpoint=" + c.layout.ContainerdSocket(),
		"--var-run-root-dir=" + filepath.Join(dir, "var-run") + "/",
		"--run-root-dir=" + filepath.Join(dir, "run") + "/",
		"--var-lib-kubelet-dir=" + c.layout.KubeletRootDir() + "/",
		"--tsdb-path=" + filepath.Join(dir, "metric-data") + "/",
		"--audit-log-dir=" + filepath.Join(dir, "audit"),
		"--prediction-checkpoint-filepath=" + filepath.Join(dir, "prediction"),
		"--pod-resources-proxy-path=" + filepath.Join(dir, "run", "pod-resources"),
		"--xpu-device-infos-dir=" + filepath.Join(dir, "xpu") + "/",
		"--runtime-hooks-addr=" + filepath.Join(dir, "run", "koordlet.sock"),
		"--runtime-hooks-config-path=" + filepath.Join(dir, "hookserver.d"),
		"--enable-nri-runtime-hook=false",
		"--kubelet-preferred-address-type=InternalIP",
		"--v=4",
	}
	if opts.FeatureGates != "" {
		args = append(args, "--feature-gates="+opts.FeatureGates)
	}
	env := []string{
		"NODE_NAME=" + c.opts.NodeName, "agent_mode=hostMode",
		"PATH=" + filepath.Join(dir, "bin") + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	p, err := startProcessWithEnv(c.layout, "koordlet", opts.Binary, env, args...)
	if err != nil {
		return err
	}
	c.processes = append(c.processes, p)
	c.koordletMetrics = "http://" + addr + "/metrics"
	return waitFor(ctx, "koordlet", p, 2*time.Minute, httpOK(c.koordletMetrics))
}

// lscpuShim is the lscpu koordlet runs: the host's, with a CPU's cache
// column "-" (a virtual machine that reports no cache topology, as the CI
// machines) read as one cache shared by every CPU. koordlet collects the
// node's CPU topology with `lscpu -e=CPU,NODE,SOCKET,CORE,CACHE,ONLINE` and
// drops every CPU without caches; with none left its metric advisor never
// syncs, and nothing of the NodeSLO is ever applied. Other hosts' output
// passes unchanged.
const lscpuShim = `#!/bin/sh
# Written by test/nodecluster (StartKoordlet): the host's lscpu, with a
# missing cache column read as one cache shared by every CPU.
/usr/bin/lscpu "$@" | awk '$5 == "-" { $5 = "0:0:0:0" } { print }'
`

// KoordletRunning reports whether koordlet still runs.
func (c *Cluster) KoordletRunning() bool {
	p := c.process("koordlet")
	return p != nil && p.running()
}

// KoordletLog is koordlet's log file.
func (c *Cluster) KoordletLog() string { return filepath.Join(c.layout.LogDir(), "koordlet.log") }

// KoordletMetrics is the URL of koordlet's Prometheus metrics.
func (c *Cluster) KoordletMetrics() string { return c.koordletMetrics }

// BestEffortCgroup is the path of the kubelet's best-effort QoS cgroup in
// the cgroup v1 hierarchy named (cpu, memory, ...), where koordlet's CPU
// suppression writes.
func BestEffortCgroup(hierarchy string) string {
	return filepath.Join("/sys/fs/cgroup", hierarchy, cgroupRoot, "kubepods", "besteffort")
}

// linkCgroupHierarchies makes dir hold, for each cgroup v1 hierarchy
// mounted under /sys/fs/cgroup, a link of its name to the kubelet's cgroup
// root in it.
func linkCgroupHierarchies(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mounts, err := cgroupMounts()
	if err != nil {
		return err
	}
	linked := 0
	for _, mount := range mounts {
		name, ok := strings.CutPrefix(mount, "/sys/fs/cgroup/")
		if !ok || strings.Contains(name, "/") || name == "unified" {
			continue
		}
		target := filepath.Join(mount, cgroupRoot)
		if _, err := os.Stat(target); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			return err
		}
		linked++
	}
	if linked == 0 {
		return fmt.Errorf("no cgroup v1 hierarchy under /sys/fs/cgroup holds %s: "+
			"koordlet's scenarios need a cgroup v1 host", cgroupRoot)
	}
	return nil
}

// StopKoordlet stops koordlet, if it runs (SIGTERM; SIGKILL after 30 s).
func (c *Cluster) StopKoordlet() {
	if p := c.process("koordlet"); p != nil {
		c.stopProcess(p)
	}
}
