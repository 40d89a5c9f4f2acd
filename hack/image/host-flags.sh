#!/usr/bin/env bash
# Prints the flags this host needs for podman to build and run the image, so
# that `make docker-build-offline` and `make test-image` work as documented
# without flags given by hand. The Makefile uses them as the defaults of
# CONTAINER_TOOL_FLAGS (global) and of CONTAINER_BUILD_FLAGS and
# CONTAINER_RUN_FLAGS (ulimits); setting those variables overrides them.
#
#   global:  --runtime runc on a host without the unified cgroup v2
#            hierarchy (cgroup v1, or v1 and v2 in hybrid mode) when runc is
#            installed: crun cannot run containers there;
#   ulimits: --ulimit nofile=N:N and --ulimit nproc=P:P where this shell's
#            hard limits are below what rootful podman sets by default
#            (nofile 1048576, nproc 4194304): without CAP_SYS_RESOURCE (a
#            sandbox) runc cannot raise them ("error setting rlimit type 6:
#            operation not permitted") and the container fails. N is the hard
#            limit; P the hard limit but at most 32768: podman 4.3 runs
#            itself, conmon and runc with at most that many processes
#            (seen in /proc/<podman>/limits on a host whose hard limit is
#            96362), and a container cannot get more than runc has.
#
# Prints nothing for another tool than podman (docker chooses its runtime
# and ulimits by its daemon's configuration).
#
# Usage: hack/image/host-flags.sh global|ulimits TOOL   e.g. ... ulimits podman
set -euo pipefail

kind=${1:?usage: $0 global|ulimits TOOL}
tool=${2:?usage: $0 global|ulimits TOOL}

[[ $(basename "$tool") == podman ]] || exit 0

# podman's rootful defaults (pkg/specgen/generate: define.RLimitDefaultValue,
# and its process limit).
podman_nofile=1048576
podman_nproc=4194304
podman_own_nproc=32768

# below HARD DEFAULT: whether the hard limit is a number below the default.
below() { [[ $1 != unlimited && $1 -lt $2 ]]; }

case $kind in
  global)
    if [[ $(stat -fc %T /sys/fs/cgroup 2>/dev/null) != cgroup2fs ]] && command -v runc >/dev/null; then
      echo "--runtime runc"
    fi
    ;;
  ulimits)
    flags=()
    nofile=$(ulimit -Hn)
    nproc=$(ulimit -Hu)
    below "$nofile" "$podman_nofile" && flags+=("--ulimit nofile=$nofile:$nofile")
    if below "$nproc" "$podman_nproc"; then
      below "$nproc" "$podman_own_nproc" || nproc=$podman_own_nproc
      flags+=("--ulimit nproc=$nproc:$nproc")
    fi
    echo "${flags[*]}"
    ;;
  *)
    echo "$0: unknown kind $kind (global or ulimits)" >&2
    exit 2
    ;;
esac
