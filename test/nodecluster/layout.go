package nodecluster

import "path/filepath"

// Layout names the files and directories of a cluster under its directory.
// containerd.toml and pause-image.tar are written by
// hack/cluster/install-node-packages.sh and kept; logs/ is kept until the
// next run; the rest is made by Start and removed by Stop.
type Layout struct{ Dir string }

func (l Layout) path(elem ...string) string {
	return filepath.Join(append([]string{l.Dir}, elem...)...)
}

// ContainerdConfig is the configuration install-node-packages.sh writes.
func (l Layout) ContainerdConfig() string { return l.path("containerd.toml") }

// PauseImage is the OCI layout tar of the sandbox image.
func (l Layout) PauseImage() string { return l.path("pause-image.tar") }

// ContainerdDir holds containerd's root, state and sockets (as the
// configuration says).
func (l Layout) ContainerdDir() string { return l.path("containerd") }

// ContainerdSocket is containerd's gRPC (and CRI) socket.
func (l Layout) ContainerdSocket() string { return l.path("containerd", "containerd.sock") }

// CNIConfDir is containerd's CNI configuration directory.
func (l Layout) CNIConfDir() string { return l.path("cni", "net.d") }

// CNIDir holds the CNI configuration and host-local's IP allocations.
func (l Layout) CNIDir() string { return l.path("cni") }

// PKIDir holds the cluster's CA, certificates and service-account keys.
func (l Layout) PKIDir() string { return l.path("pki") }

// EtcdDir is etcd's data directory.
func (l Layout) EtcdDir() string { return l.path("etcd") }

// KubeletDir holds the kubelet's configuration, kubeconfig, root directory
// (--root-dir) and pod logs.
func (l Layout) KubeletDir() string { return l.path("kubelet") }

// KubeletRootDir is the kubelet's --root-dir (instead of /var/lib/kubelet).
func (l Layout) KubeletRootDir() string { return l.path("kubelet", "root") }

// Kubeconfig is the cluster administrator's kubeconfig (system:masters).
func (l Layout) Kubeconfig() string { return l.path("kubeconfig") }

// KubeconfigFor is the kubeconfig of one component.
func (l Layout) KubeconfigFor(component string) string {
	return l.path("pki", component+".kubeconfig")
}

// KoordletDir holds koordlet's files (StartKoordlet).
func (l Layout) KoordletDir() string { return l.path("koordlet") }

// KoordletCgroupRoot is koordlet's --cgroup-root-dir: links to the kubelet's
// cgroup root in each hierarchy.
func (l Layout) KoordletCgroupRoot() string { return l.path("koordlet", "cgroup") }

// LogDir holds each process's output, kept after Stop for a post-mortem.
func (l Layout) LogDir() string { return l.path("logs") }

// PIDDir holds one file per running process, so that the next Start can
// stop what a crashed run left.
func (l Layout) PIDDir() string { return l.path("pids") }

// runState is what a run makes in the directory and Stop removes.
func (l Layout) runState() []string {
	return []string{
		l.PIDDir(), l.EtcdDir(), l.ContainerdDir(), l.KubeletDir(), l.CNIDir(), l.PKIDir(), l.KoordletDir(), l.Kubeconfig(),
	}
}

// SavedSysctls holds the host's sysctls as they were before the run, until
// Stop has put them back.
func (l Layout) SavedSysctls() string { return l.path("sysctls.saved") }
