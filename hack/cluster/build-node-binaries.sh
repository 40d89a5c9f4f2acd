#!/usr/bin/env bash
# Builds kubelet, kube-proxy, kube-controller-manager and kube-scheduler from
# the Go module proxy into setup-envtest's store, beside the kube-apiserver,
# etcd and kubectl of hack/build-envtest-binaries.sh: the same module set-up
# and flags (hack/lib/kubernetes-module.sh), so most packages come from the
# build cache kube-apiserver filled.
# A binary already in the store is not built again.
#
# Usage: hack/cluster/build-node-binaries.sh <k8s-version> <store-dir>
#   e.g. hack/cluster/build-node-binaries.sh 1.37.2 ~/.local/share/kubebuilder-envtest
set -euo pipefail
# shellcheck source=../lib/kubernetes-module.sh
. "$(dirname "$0")/../lib/kubernetes-module.sh"

k8s_version=${1:?k8s version, e.g. 1.37.2}
store=${2:?setup-envtest store directory}

goos=$(go env GOOS)
goarch=$(go env GOARCH)
dest="$store/k8s/${k8s_version}-${goos}-${goarch}"
binaries=(kubelet kube-proxy kube-controller-manager kube-scheduler)

step() { echo "[node-build] $*"; }
elapsed() { echo "$(( $(date +%s) - $1 ))s"; }

missing=()
for b in "${binaries[@]}"; do
  [ -x "$dest/$b" ] || missing+=("$b")
done
if [ ${#missing[@]} -eq 0 ]; then
  step "${binaries[*]} ${k8s_version} already in $dest"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dest"

all_start=$(date +%s)
step "preparing a module for k8s.io/kubernetes v${k8s_version} (staging modules at v0.${k8s_version#*.})"
kubernetes_module "$work" node-build "$k8s_version" "${missing[@]}"
ldflags=$(kubernetes_ldflags "$k8s_version")

# One build for all of them: they share most of their packages, and their
# links run side by side instead of one after another.
step "building ${missing[*]} v${k8s_version}"
mkdir -p "$work/out"
(
  cd "$work"
  CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "$ldflags" -o "$work/out/" \
    "${missing[@]/#/k8s.io/kubernetes/cmd/}"
)
for b in "${missing[@]}"; do
  install -m 0755 "$work/out/$b" "$dest/$b"
done
step "installed ${missing[*]} into $dest in $(elapsed "$all_start")"
