#!/usr/bin/env bash
# Builds hack/cluster/cert-manager (cert-manager's controller and CA injector
# from the library packages of github.com/cert-manager/cert-manager, at the
# version its go.mod pins) into <binary>, unless it is there already, and
# downloads that module, whose deploy/crds the cluster installs.
#
# cert-manager's own commands (the modules github.com/cert-manager/
# cert-manager/cmd/controller and cmd/cainjector) are not on the Go module
# proxy: `go list -m -versions` answers 404 for them; hence this entry point.
#
# Usage: hack/cluster/build-cert-manager.sh <binary>
# Prints the directory of the module's CRDs.
set -euo pipefail

binary=${1:?path of the binary to build}
src=$(cd "$(dirname "$0")/cert-manager" && pwd)

step() { echo "[cert-manager] $*" >&2; }

version=$(cd "$src" && go list -m -f '{{.Version}}' github.com/cert-manager/cert-manager)
if [ ! -x "$binary" ]; then
  start=$(date +%s)
  step "building cert-manager ${version} (controller and cainjector) into ${binary}"
  mkdir -p "$(dirname "$binary")"
  ( cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$binary.tmp" . )
  mv "$binary.tmp" "$binary"
  step "built in $(( $(date +%s) - start ))s"
fi
dir=$(cd "$src" && go mod download -json "github.com/cert-manager/cert-manager@${version}" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
[ -d "$dir/deploy/crds" ] || { step "no deploy/crds in ${dir}"; exit 1; }
echo "$dir/deploy/crds"
