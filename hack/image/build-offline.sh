#!/usr/bin/env bash
# Builds the Dockerfile without any image registry: it assembles local
# stand-ins for the Dockerfile's two base images from this machine, tags them,
# and builds the Dockerfile with their names (BUILDER_IMAGE, RUNTIME_IMAGE).
# Go modules still come from the module proxy (GOPROXY, passed through).
#
# What differs from the production build (see docs/image.md):
#   - the builder is this machine's Go toolchain ($(go env GOROOT)) with
#     busybox as its shell, not golang:1.26 (Debian with the newest 1.26.x);
#   - the runtime base has only what gcr.io/distroless/static:nonroot
#     provides that the manager can use: /etc/passwd and /etc/group with
#     nonroot (65532), CA certificates, /tmp, /home/nonroot, USER 65532.
#     It lacks distroless's tzdata, /etc/os-release and license files.
# The manager binary is built by the same Dockerfile lines either way.
#
# Usage: build-offline.sh IMAGE   (CONTAINER_TOOL=podman|docker, default podman;
# CONTAINER_TOOL_FLAGS and CONTAINER_BUILD_FLAGS are passed to it)
set -euo pipefail

image=${1:?usage: $0 IMAGE (the tag to build, e.g. nodeslo-controller:dev)}
tool=${CONTAINER_TOOL:-podman}
# Word-split on purpose: flag lists.
read -r -a tool_flags <<<"${CONTAINER_TOOL_FLAGS:-}"
read -r -a build_flags <<<"${CONTAINER_BUILD_FLAGS:-}"

builder_image=localhost/nodeslo-offline/golang:$(go env GOVERSION | sed 's/^go//')
runtime_image=localhost/nodeslo-offline/static:nonroot
root=$(cd "$(dirname "$0")/../.." && pwd)

need() {
  command -v "$1" >/dev/null || { echo "build-offline: $1 not found: $2" >&2; exit 1; }
}
need "$tool" "install podman and runc (Debian: apt-get install -y podman runc)"
need busybox "the builder's shell (Debian: apt-get install -y busybox-static)"
need go "the builder's toolchain is this machine's Go"
busybox_bin=$(command -v busybox)
# The builder has no C library: busybox must be static (ldd fails on it).
if ldd "$busybox_bin" >/dev/null 2>&1; then
  echo "build-offline: $busybox_bin is dynamically linked; install busybox-static" >&2
  exit 1
fi
ca_bundle=/etc/ssl/certs/ca-certificates.crt
[[ -s $ca_bundle ]] || { echo "build-offline: no CA bundle at $ca_bundle (apt-get install -y ca-certificates)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# import_rootfs DIR IMAGE CHANGES...: the directory as a one-layer image,
# every file owned by root unless DIR says otherwise (tar keeps numeric ids).
# An image of that name is kept (it only changes with the Go toolchain,
# which is in the builder's tag) unless OFFLINE_REBUILD_BASES=1.
import_rootfs() {
  local dir=$1 name=$2
  shift 2
  local changes=()
  for c in "$@"; do changes+=(--change "$c"); done
  tar -C "$dir" --numeric-owner -cf "$work/$(basename "$dir").tar" .
  "$tool" "${tool_flags[@]}" import "${changes[@]}" "$work/$(basename "$dir").tar" "$name" >/dev/null
  echo "build-offline: tagged $name"
}

have() { [[ ${OFFLINE_REBUILD_BASES:-0} != 1 ]] && "$tool" "${tool_flags[@]}" image exists "$1"; }

# The runtime base: distroless/static:nonroot's users, groups, CA bundle and
# writable-by-all /tmp (read-only anyway under readOnlyRootFilesystem).
base=$work/runtime
if have "$runtime_image"; then
  echo "build-offline: reusing $runtime_image (OFFLINE_REBUILD_BASES=1 makes it again)"
else
mkdir -p "$base"/{etc/ssl/certs,tmp,home/nonroot,root}
cat >"$base/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
PASSWD
cat >"$base/etc/group" <<'GROUP'
root:x:0:
nobody:x:65534:
tty:x:5:
staff:x:50:
nonroot:x:65532:
GROUP
echo 'hosts: files dns' >"$base/etc/nsswitch.conf"
cp "$ca_bundle" "$base/etc/ssl/certs/ca-certificates.crt"
chmod 1777 "$base/tmp"
chmod 700 "$base/root" "$base/home/nonroot"
chown 65532:65532 "$base/home/nonroot"
import_rootfs "$base" "$runtime_image" \
  'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  "ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt" \
  'USER 65532:65532' 'WORKDIR /home/nonroot'
fi

# The builder: this machine's GOROOT at golang's path (/usr/local/go), GOPATH
# /go, busybox for the shell form of RUN, CA certificates for the module proxy.
builder=$work/builder
if have "$builder_image"; then
  echo "build-offline: reusing $builder_image (OFFLINE_REBUILD_BASES=1 makes it again)"
else
mkdir -p "$builder"/{bin,etc/ssl/certs,tmp,root,go,usr/local}
cp "$busybox_bin" "$builder/bin/busybox"
for applet in $("$busybox_bin" --list); do
  [[ -e $builder/bin/$applet ]] || ln -s busybox "$builder/bin/$applet"
done
cp "$ca_bundle" "$builder/etc/ssl/certs/ca-certificates.crt"
echo 'root:x:0:0:root:/root:/bin/sh' >"$builder/etc/passwd"
echo 'root:x:0:' >"$builder/etc/group"
echo 'hosts: files dns' >"$builder/etc/nsswitch.conf"
chmod 1777 "$builder/tmp"
# Go's own tests and docs are not needed to build.
tar -C "$(go env GOROOT)/.." --anchored --exclude='go/test' --exclude='go/doc' -cf - "$(basename "$(go env GOROOT)")" \
  | tar -C "$builder/usr/local" -xf -
[[ $(basename "$(go env GOROOT)") == go ]] || mv "$builder/usr/local/$(basename "$(go env GOROOT)")" "$builder/usr/local/go"
import_rootfs "$builder" "$builder_image" \
  'ENV PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  'ENV GOPATH=/go' 'WORKDIR /go'
fi
rm -rf "${work:?}"/*

# The Dockerfile itself, with the stand-ins and no pull: a registry is never
# contacted. Host networking reaches the module proxy as the host does.
build_args=(--build-arg "BUILDER_IMAGE=$builder_image" --build-arg "RUNTIME_IMAGE=$runtime_image")
[[ -z ${GOPROXY:-} ]] || build_args+=(--build-arg "GOPROXY=$GOPROXY")
# The host's module and build caches, bind-mounted into the builder's RUN
# steps (OFFLINE_SHARE_GO_CACHES=0 keeps the Dockerfile's own cache mounts):
# the builder runs this machine's toolchain with make build's flags
# (CGO off, -trimpath), so every package make build compiled is a cache hit
# and a first image build costs a link instead of compiling the manager's
# dependencies from empty caches (about 3.5 minutes on 2 cores). The binary
# is the same either way; a cache changes how long the build takes, never
# what it makes.
if [[ ${OFFLINE_SHARE_GO_CACHES:-1} == 1 ]]; then
  modcache=$(go env GOMODCACHE)
  gocache=$(go env GOCACHE)
  mkdir -p "$modcache" "$gocache"
  build_args+=(--volume "$modcache:/host-go/mod" --volume "$gocache:/host-go/build"
    --build-arg GOMODCACHE=/host-go/mod --build-arg GOCACHE=/host-go/build)
fi
start=$(date +%s)
"$tool" "${tool_flags[@]}" build --pull=never --network=host "${build_flags[@]}" \
  "${build_args[@]}" -f "$root/Dockerfile" -t "$image" "$root"
echo "build-offline: built $image in $(( $(date +%s) - start ))s"
