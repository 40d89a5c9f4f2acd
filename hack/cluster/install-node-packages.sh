#!/usr/bin/env bash
# Prepares this machine to run the local cluster's node, offline:
#   1. installs containerd, runc, the CNI plugins (bridge, host-local,
#      loopback in /usr/lib/cni) and iptables (for the bridge's ipMasq rules,
#      and kube-proxy later) from Debian's packages when one is missing,
#      without recommends, and without starting a service (the cluster starts
#      its own containerd with the configuration below);
#   2. writes <cluster-dir>/containerd.toml: CRI with restrict_oom_score_adj
#      (this sandbox lacks CAP_SYS_RESOURCE: containerd's -998 would fail as
#      "can't get final child's PID from pipe: EOF"), cgroupfs (SystemdCgroup =
#      false), the overlayfs snapshotter, all state under <cluster-dir> (pod
#      network namespaces too), and
#      a locally made sandbox image;
#   3. builds that sandbox image: hack/cluster/pause, static, in an OCI image
#      layout made here with tar and sha256sum, as <cluster-dir>/pause-image.tar
#      (the cluster imports it with `ctr -n k8s.io images import`);
#   4. builds the image of the chart's `helm test` Pod, a shell and wget:
#      this machine's static busybox (busybox-static, installed when busybox
#      is missing or not static), as <cluster-dir>/helm-test-image.tar
#      (test/cluster imports it and names it in testFramework.image).
#
# Usage: hack/cluster/install-node-packages.sh <cluster-dir>
#   e.g. hack/cluster/install-node-packages.sh /tmp/nodeslo-cluster
set -euo pipefail

dir=${1:?cluster directory, e.g. /tmp/nodeslo-cluster}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)

# The sandbox image's name: containerd's sandbox_image and the smoke test's
# container image (pulled never: nothing can be pulled here).
pause_image=localhost/nodeslo-cluster/pause:1

step() { echo "[node-packages] $*"; }

# 1. Packages: the file each one provides, checked before apt is run.
declare -A provides=(
  [containerd]=/usr/bin/containerd
  [runc]=/usr/sbin/runc
  [containernetworking-plugins]=/usr/lib/cni/bridge
  [iptables]=/usr/sbin/iptables
)
missing=()
for package in containerd runc containernetworking-plugins iptables; do
  [ -x "${provides[$package]}" ] || missing+=("$package")
done
# The helm test image's busybox must be static: the image has no C library.
busybox_bin=$(command -v busybox || true)
if [ -z "$busybox_bin" ] || ldd "$busybox_bin" >/dev/null 2>&1; then
  missing+=(busybox-static)
fi
if [ ${#missing[@]} -gt 0 ]; then
  start=$(date +%s)
  step "installing ${missing[*]} (apt-get, --no-install-recommends)"
  # policy-rc.d or not, the cluster runs containerd itself: keep Debian's
  # service from starting one with the default configuration.
  if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    systemctl mask containerd.service >/dev/null 2>&1 || true
  fi
  # A fresh machine may have no package lists yet.
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  step "installed in $(( $(date +%s) - start ))s"
else
  step "containerd, runc, CNI plugins and iptables already installed"
fi
containerd --version
runc --version | head -1

# 2. containerd's configuration (version 2, the format of containerd 1.6).
cat >"$dir/containerd.toml" <<TOML
# Written by hack/cluster/install-node-packages.sh. The local cluster starts
# containerd with --config on this file; nothing of it is under /var/lib.
version = 2
root = "$dir/containerd/root"
state = "$dir/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = "$dir/containerd/containerd.sock"

[ttrpc]
  address = "$dir/containerd/containerd.sock.ttrpc"

[plugins."io.containerd.internal.v1.opt"]
  path = "$dir/containerd/opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause_image"
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  # Pod network namespaces under state, not /run/netns.
  netns_mounts_under_state_dir = true
  enable_selinux = false

  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"

    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "/usr/sbin/runc"
        # runc's state, instead of /run/containerd/runc.
        Root = "$dir/containerd/runc"
        SystemdCgroup = false

  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$dir/cni/net.d"
TOML
step "wrote $dir/containerd.toml"

# 3. The sandbox image, as an OCI image layout in a tar.
# shellcheck source=../lib/oci-image.sh
. "$root/hack/lib/oci-image.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/rootfs"
( cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/rootfs/pause" ./hack/cluster/pause )
digest=$(oci_image_tar "$work/rootfs" "$pause_image" '{"User":"65535:65535","Entrypoint":["/pause"],"WorkingDir":"/"}' "$dir/pause-image.tar")
step "wrote $dir/pause-image.tar ($pause_image, manifest $digest)"

# 4. The helm test Pod's image: busybox and a link per applet in /bin, as
# busybox images have them, and the user nobody the Pod runs as.
helm_test_image=localhost/nodeslo-cluster/busybox:1
busybox_bin=$(command -v busybox)
mkdir -p "$work/busybox/bin" "$work/busybox/etc"
cp "$busybox_bin" "$work/busybox/bin/busybox"
for applet in $("$busybox_bin" --list); do
  [ -e "$work/busybox/bin/$applet" ] || ln -s busybox "$work/busybox/bin/$applet"
done
echo 'nobody:x:65534:65534:nobody:/home:/bin/false' >"$work/busybox/etc/passwd"
echo 'nobody:x:65534:' >"$work/busybox/etc/group"
digest=$(oci_image_tar "$work/busybox" "$helm_test_image" \
  '{"Env":["PATH=/bin"],"Cmd":["sh"],"WorkingDir":"/"}' "$dir/helm-test-image.tar")
step "wrote $dir/helm-test-image.tar ($helm_test_image, manifest $digest)"
