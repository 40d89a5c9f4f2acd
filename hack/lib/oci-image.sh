# Sourced by hack/cluster/install-node-packages.sh and
# hack/cluster/build-koordinator.sh: writes a one-layer image as an OCI image
# layout in a tar, with nothing but tar and sha256sum, for
# `ctr images import` on the local cluster's containerd (no registry, no
# container tool).

# oci_image_tar ROOTFS IMAGE CONFIG OUT: OUT is the image IMAGE (name:tag)
# whose one layer is the directory ROOTFS and whose image configuration's
# "config" object is CONFIG (JSON: Entrypoint, User, ...). Reproducible:
# the same inputs give the same digests.
oci_image_tar() {
  local rootfs=$1 image=$2 config_json=$3 out=$4
  local work tar_flags
  work=$(mktemp -d)
  tar_flags=(--sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner)
  mkdir -p "$work/layout/blobs/sha256"

  # blob FILE MEDIA-TYPE: stores FILE as a blob and prints its descriptor.
  blob() {
    local digest size
    digest=$(sha256sum "$1" | cut -d' ' -f1)
    size=$(stat -c %s "$1")
    cp "$1" "$work/layout/blobs/sha256/$digest"
    printf '{"mediaType":"%s","digest":"sha256:%s","size":%s}' "$2" "$digest" "$size"
  }

  tar "${tar_flags[@]}" -C "$rootfs" -cf "$work/layer.tar" .
  local layer_digest layer config manifest
  layer_digest=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
  layer=$(blob "$work/layer.tar" application/vnd.oci.image.layer.v1.tar)

  printf '{"architecture":"amd64","os":"linux","config":%s,"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$config_json" "$layer_digest" >"$work/config.json"
  config=$(blob "$work/config.json" application/vnd.oci.image.config.v1+json)

  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":%s,"layers":[%s]}' \
    "$config" "$layer" >"$work/manifest.json"
  manifest=$(blob "$work/manifest.json" application/vnd.oci.image.manifest.v1+json)

  # The index names the image: containerd's importer reads
  # io.containerd.image.name; org.opencontainers.image.ref.name is the tag.
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[%s]}' \
    "${manifest%\}},\"platform\":{\"architecture\":\"amd64\",\"os\":\"linux\"},\"annotations\":{\"io.containerd.image.name\":\"$image\",\"org.opencontainers.image.ref.name\":\"${image##*:}\"}}" \
    >"$work/layout/index.json"
  printf '{"imageLayoutVersion":"1.0.0"}' >"$work/layout/oci-layout"

  tar "${tar_flags[@]}" -C "$work/layout" -cf "$out" oci-layout index.json blobs
  echo "$manifest" | sed 's/.*"digest":"\([^"]*\)".*/\1/'
  rm -rf "$work"
}
