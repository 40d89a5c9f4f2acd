#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy and places them in
# setup-envtest's store, for machines that cannot reach the envtest release
# download. After this, `setup-envtest use -i <version>` finds them offline.
#
# Usage: hack/build-envtest-binaries.sh <k8s-version> <etcd-version> <store-dir>
#   e.g. hack/build-envtest-binaries.sh 1.37.2 3.6.16 ~/.local/share/kubebuilder-envtest
set -euo pipefail
# shellcheck source=lib/kubernetes-module.sh
. "$(dirname "$0")/lib/kubernetes-module.sh"

k8s_version=${1:?k8s version, e.g. 1.37.2}
etcd_version=${2:?etcd version, e.g. 3.6.16}
store=${3:?setup-envtest store directory}

goos=$(go env GOOS)
goarch=$(go env GOARCH)
dest="$store/k8s/${k8s_version}-${goos}-${goarch}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dest"

step() { echo "[envtest-build] $*"; }
elapsed() { echo "$(( $(date +%s) - $1 ))s"; }

start=$(date +%s)
step "building kube-apiserver and kubectl v${k8s_version} (staging modules at v0.${k8s_version#*.}); a cold build takes several minutes"
mkdir -p "$work/apiserver" "$work/out"
kubernetes_module "$work/apiserver" envtest-build/apiserver "$k8s_version" kube-apiserver kubectl
ldflags=$(kubernetes_ldflags "$k8s_version")
# One build for both: kubectl shares most of its packages with
# kube-apiserver, and the two links run side by side.
(
  cd "$work/apiserver"
  CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "$ldflags" -o "$work/out/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubectl
)
step "kube-apiserver and kubectl built in $(elapsed "$start")"

start=$(date +%s)
step "building etcd v${etcd_version}"
mkdir -p "$work/etcd"
(
  cd "$work/etcd"
  go mod init envtest-build/etcd >/dev/null 2>&1
  GOFLAGS=-mod=mod go get "go.etcd.io/etcd/server/v3@v${etcd_version}" >/dev/null 2>&1 || \
    GOFLAGS=-mod=mod go get "go.etcd.io/etcd/server/v3@v${etcd_version}"
  CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$work/etcd-bin" go.etcd.io/etcd/server/v3
)
step "etcd built in $(elapsed "$start")"

install -m 0755 "$work/out/kube-apiserver" "$dest/kube-apiserver"
install -m 0755 "$work/etcd-bin" "$dest/etcd"
# setup-envtest expects kubectl in a version directory too.
install -m 0755 "$work/out/kubectl" "$dest/kubectl"
step "installed into $dest"
