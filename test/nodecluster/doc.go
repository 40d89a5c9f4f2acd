// Package nodecluster starts a Kubernetes cluster with one real node on this
// machine, offline, from real components: etcd and kube-apiserver (the
// envtest binaries), kube-controller-manager and kube-scheduler, containerd
// with runc and the CNI bridge (Debian's packages), a kubelet and
// kube-proxy (iptables mode: Services' ClusterIPs answer pods). The Go
// binaries come from hack/build-envtest-binaries.sh and
// hack/cluster/build-node-binaries.sh, the packages, containerd's
// configuration and the sandbox image from hack/cluster/install-node-packages.sh.
//
// Everything it writes is under one directory (Layout), except what the
// kernel keeps: sysctls, the bridge link, iptables rules (the CNI's and
// every KUBE-* chain) and cgroups. Stop puts those back as they were, stops
// every process it started by PID, and removes the mounts, network
// namespaces and cgroups its pods made; Start first does the same for what
// a crashed run left behind, so that runs can follow each other on one
// machine.
package nodecluster
