#!/usr/bin/env bash
# Makes kube-apiserver and etcd of one Kubernetes version available to envtest
# and prints the directory that holds them (for KUBEBUILDER_ASSETS).
#
# 1. binaries already in setup-envtest's store: use them (no network);
# 2. otherwise setup-envtest's normal download;
# 3. when that cannot be reached: build both from the Go module proxy into
#    the store (hack/build-envtest-binaries.sh), so step 1 finds them next time.
#
# Progress goes to stderr, the path alone to stdout.
# Usage: hack/setup-envtest.sh <setup-envtest binary> <k8s version> <etcd version>
set -euo pipefail

envtest=${1:?path to setup-envtest}
k8s_version=${2:?k8s version}
etcd_version=${3:?etcd version}
here=$(cd "$(dirname "$0")" && pwd)
store=${ENVTEST_STORE:-${XDG_DATA_HOME:-$HOME/.local/share}/kubebuilder-envtest}

log() { echo "[setup-envtest] $*" >&2; }
start=$(date +%s)

if path=$("$envtest" use -i "$k8s_version" --bin-dir "$store" -p path 2>/dev/null) && [ -x "$path/kube-apiserver" ] && [ -x "$path/etcd" ]; then
  log "found kube-apiserver and etcd ${k8s_version} in ${path} ($(( $(date +%s) - start ))s)"
  echo "$path"
  exit 0
fi

log "kube-apiserver ${k8s_version} is not in ${store}; trying setup-envtest's download"
if path=$(timeout "${ENVTEST_DOWNLOAD_TIMEOUT:-60}" "$envtest" use "$k8s_version" --bin-dir "$store" -p path 2>/dev/null) && [ -x "$path/kube-apiserver" ]; then
  log "downloaded into ${path} ($(( $(date +%s) - start ))s)"
  echo "$path"
  exit 0
fi

log "download not reachable ($(( $(date +%s) - start ))s); building from the Go module proxy instead"
"$here/build-envtest-binaries.sh" "$k8s_version" "$etcd_version" "$store" >&2
path=$("$envtest" use -i "$k8s_version" --bin-dir "$store" -p path)
log "ready in ${path} ($(( $(date +%s) - start ))s in all)"
echo "$path"
