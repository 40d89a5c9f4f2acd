#!/usr/bin/env bash
# Builds Koordinator's koordlet and koord-manager at one tag from the Go
# module proxy into <dir>, and koord-manager's image as an OCI image tar for
# the local cluster's containerd; prints the directory of Koordinator's CRDs
# (config/crd/bases of its module) on stdout. What is there already is not
# built again.
#
# Koordinator's go.mod replaces k8s.io/* and a few others; a module that
# requires it must repeat that block, which this script reads from the
# module's own go.mod (nothing of Koordinator is kept in this repository).
# koordlet links libpfm (perf events) through cgo: Debian's libpfm4-dev is
# installed when missing. koord-manager's image holds it and the C library
# it links.
#
# Usage: hack/cluster/build-koordinator.sh <version> <dir>
#   e.g. hack/cluster/build-koordinator.sh v1.8.0 bin/koordinator
set -euo pipefail

version=${1:?Koordinator version, e.g. v1.8.0}
dir=${2:?output directory}
root=$(cd "$(dirname "$0")/../.." && pwd)
module=github.com/koordinator-sh/koordinator
image=localhost/koordinator/koord-manager:${version}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

step() { echo "[koordinator] $*" >&2; }

# The module, downloaded (or found) once: its go.mod and its files.
download=$(go mod download -json "${module}@${version}")
modfile=$(echo "$download" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
crds=$(echo "$download" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')/config/crd/bases

if [ ! -x "$dir/koordlet" ] || [ ! -x "$dir/koord-manager" ] || [ ! -f "$dir/koord-manager-image.tar" ]; then
  if [ ! -f /usr/include/perfmon/pfmlib.h ]; then
    start=$(date +%s)
    step "installing libpfm4-dev (koordlet's cgo dependency)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libpfm4-dev >/dev/null
    step "installed in $(( $(date +%s) - start ))s"
  fi
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (
    cd "$work"
    go mod init koordinator-build >/dev/null 2>&1
    go mod edit -go="$(go env GOVERSION | sed 's/^go//; s/\([0-9]*\.[0-9]*\).*/\1/').0"
    # Every "old => new version" line of Koordinator's replace block.
    sed -n '/^replace (/,/^)/p' "$modfile" | sed -n 's#^\s*\([^ /][^ ]*\) => \([^ ]*\) \(v[^ ]*\)$#\1=\2@\3#p' |
      while read -r replace; do go mod edit -replace="$replace"; done
    go mod edit -require="${module}@${version}"
  )
  # Both in one build, with cgo (koordlet needs it): they share almost
  # every package, compiled once. koord-manager is then linked against the
  # C library, which its image carries (below).
  start=$(date +%s)
  step "building koordlet and koord-manager ${version}"
  mkdir -p "$work/out"
  ( cd "$work" && CGO_ENABLED=1 GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$work/out/" \
      "${module}/cmd/koordlet" "${module}/cmd/koord-manager" )
  mv "$work/out/koordlet" "$work/out/koord-manager" "$dir/"
  step "built in $(( $(date +%s) - start ))s"
  # shellcheck source=../lib/oci-image.sh
  . "$root/hack/lib/oci-image.sh"
  mkdir -p "$work/rootfs"
  cp "$dir/koord-manager" "$work/rootfs/koord-manager"
  # The shared libraries it loads, from this machine (Debian's glibc).
  for lib in $(ldd "$dir/koord-manager" | grep -o '/[^ ]*'); do
    mkdir -p "$work/rootfs$(dirname "$lib")"
    cp -L "$lib" "$work/rootfs$lib"
  done
  digest=$(oci_image_tar "$work/rootfs" "$image" '{"User":"65532:65532","Entrypoint":["/koord-manager"],"WorkingDir":"/"}' "$dir/koord-manager-image.tar")
  step "wrote $dir/koord-manager-image.tar ($image, manifest $digest)"
fi
[ -d "$crds" ] || { step "no config/crd/bases in ${crds%/config/crd/bases}"; exit 1; }
echo "$crds"
