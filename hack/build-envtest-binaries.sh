#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy and places them in
# setup-envtest's store, for machines that cannot reach the envtest release
# download. After this, `setup-envtest use -i <version>` finds them offline.
#
# Usage: hack/build-envtest-binaries.sh <k8s-version> <etcd-version> <store-dir>
#   e.g. hack/build-envtest-binaries.sh 1.37.2 3.6.16 ~/.local/share/kubebuilder-envtest
set -euo pipefail

k8s_version=${1:?k8s version, e.g. 1.37.2}
etcd_version=${2:?etcd version, e.g. 3.6.16}
store=${3:?setup-envtest store directory}

goos=$(go env GOOS)
goarch=$(go env GOARCH)
dest="$store/k8s/${k8s_version}-${goos}-${goarch}"
minor=${k8s_version#*.}; minor=${minor%%.*}
staging_version="v0.${k8s_version#*.}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dest"

step() { echo "[envtest-build] $*"; }
elapsed() { echo "$(( $(date +%s) - $1 ))s"; }

# kube-apiserver: k8s.io/kubernetes points its staging modules at local
# directories, so a consumer must replace each with its published release.
start=$(date +%s)
step "building kube-apiserver v${k8s_version} (staging modules at ${staging_version}); a cold build takes several minutes"
mkdir -p "$work/apiserver"
(
  cd "$work/apiserver"
  go mod init envtest-build/apiserver >/dev/null 2>&1
  go mod edit -go=$(go env GOVERSION | sed 's/^go//; s/\([0-9]*\.[0-9]*\).*/\1/').0
  modfile=$(go mod download -json "k8s.io/kubernetes@v${k8s_version}" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
  for mod in $(sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$modfile"); do
    go mod edit -replace="${mod}=${mod}@${staging_version}"
  done
  go mod edit -require="k8s.io/kubernetes@v${k8s_version}"
  GOFLAGS=-mod=mod go get "k8s.io/kubernetes/cmd/kube-apiserver@v${k8s_version}" >/dev/null 2>&1 || \
    GOFLAGS=-mod=mod go get "k8s.io/kubernetes/cmd/kube-apiserver@v${k8s_version}"
  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X ${pkg}.gitVersion=v${k8s_version} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor}"
    ldflags+=" -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=1970-01-01T00:00:00Z"
  done
  CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "$ldflags" -o "$work/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
)
step "kube-apiserver built in $(elapsed "$start")"

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

# setup-envtest also expects kubectl in a version directory.
start=$(date +%s)
step "building kubectl v${k8s_version}"
(
  cd "$work/apiserver"
  CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$work/kubectl" k8s.io/kubernetes/cmd/kubectl
)
step "kubectl built in $(elapsed "$start")"

install -m 0755 "$work/kube-apiserver" "$dest/kube-apiserver"
install -m 0755 "$work/etcd-bin" "$dest/etcd"
install -m 0755 "$work/kubectl" "$dest/kubectl"
step "installed into $dest"
