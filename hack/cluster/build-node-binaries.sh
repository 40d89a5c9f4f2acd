#!/usr/bin/env bash
# Builds kubelet, kube-proxy, kube-controller-manager and kube-scheduler from
# the Go module proxy into setup-envtest's store, beside the kube-apiserver,
# etcd and kubectl of hack/build-envtest-binaries.sh: same module set-up (the staging
# modules of k8s.io/kubernetes replaced by their published releases), same
# flags, so most packages come from the build cache kube-apiserver filled.
# A binary already in the store is not built again.
#
# Usage: hack/cluster/build-node-binaries.sh <k8s-version> <store-dir>
#   e.g. hack/cluster/build-node-binaries.sh 1.37.2 ~/.local/share/kubebuilder-envtest
set -euo pipefail

k8s_version=${1:?k8s version, e.g. 1.37.2}
store=${2:?setup-envtest store directory}

goos=$(go env GOOS)
goarch=$(go env GOARCH)
dest="$store/k8s/${k8s_version}-${goos}-${goarch}"
minor=${k8s_version#*.}; minor=${minor%%.*}
staging_version="v0.${k8s_version#*.}"
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
step "preparing a module for k8s.io/kubernetes v${k8s_version} (staging modules at ${staging_version})"
(
  cd "$work"
  go mod init node-build >/dev/null 2>&1
  go mod edit -go=$(go env GOVERSION | sed 's/^go//; s/\([0-9]*\.[0-9]*\).*/\1/').0
  modfile=$(go mod download -json "k8s.io/kubernetes@v${k8s_version}" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
  for mod in $(sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$modfile"); do
    go mod edit -replace="${mod}=${mod}@${staging_version}"
  done
  go mod edit -require="k8s.io/kubernetes@v${k8s_version}"
  for b in "${missing[@]}"; do
    GOFLAGS=-mod=mod go get "k8s.io/kubernetes/cmd/${b}@v${k8s_version}" >/dev/null 2>&1 || \
      GOFLAGS=-mod=mod go get "k8s.io/kubernetes/cmd/${b}@v${k8s_version}"
  done
)

ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X ${pkg}.gitVersion=v${k8s_version} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor}"
  ldflags+=" -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=1970-01-01T00:00:00Z"
done

for b in "${missing[@]}"; do
  start=$(date +%s)
  step "building ${b} v${k8s_version}"
  (
    cd "$work"
    CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "$ldflags" -o "$work/$b-bin" "k8s.io/kubernetes/cmd/$b"
  )
  install -m 0755 "$work/$b-bin" "$dest/$b"
  step "${b} built in $(elapsed "$start")"
done
step "installed ${missing[*]} into $dest in $(elapsed "$all_start")"
