#!/usr/bin/env bash
# unprivileged-checks.sh: make test's checks (generated code, links,
# diagrams, lint, chart lint, alerts) as a developer runs them: a user
# who is not root, on a fresh clone of this checkout, with Go caches of
# their own, and with apt-get, apt, dot and sudo on PATH replaced by stubs
# that fail loudly. It proves what the README says of `make test`: it needs
# Go, make and git, no root and no system tool (docs/testing.md).
#
# The user's caches are seeded with copies of the caller's: its build and
# lint caches, and its downloaded modules as a file proxy in front of
# GOPROXY. Every tool is still installed by the Makefile and every check
# still runs, as this user; on a new machine they are only not compiled
# a second time (about ten minutes on two cores).
#
# Usage (as root, which adds the user): hack/unprivileged-checks.sh
#   UNPRIVILEGED_USER   the user to run as (default nodeslo-dev; added when missing)
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
user=${UNPRIVILEGED_USER:-nodeslo-dev}
log() { echo "[unprivileged-checks] $*"; }
start=$(date +%s)

[ "$(id -u)" -eq 0 ] || { log "run as root: it adds and switches to the user $user"; exit 2; }
id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
home=$(getent passwd "$user" | cut -d: -f6)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
git clone -q "$src" "$work/nodeslo-controller"
mkdir "$work/stubs"
for tool in apt-get apt dot sudo; do
	printf '#!/bin/sh\necho "unprivileged-checks: make test called %s, which it must not need" >&2\nexit 127\n' "$tool" \
		>"$work/stubs/$tool"
	chmod 755 "$work/stubs/$tool"
done
commit=$(git -C "$work/nodeslo-controller" log -1 --format=%h)
# Seeds, copied so that nothing of the caller's is written by the user: Go
# rewrites some entries of a build cache in place (a cache linked file by
# file was refused so), and the copy of a 9 GB cache takes about a minute
# and a half on a new 2-core machine.
gocache=$(go env GOCACHE) modcache=$(go env GOMODCACHE) lintcache=${GOLANGCI_LINT_CACHE:-$HOME/.cache/golangci-lint}
if [ -d "$gocache" ]; then cp -r "$gocache" "$work/go-build"; else mkdir "$work/go-build"; fi
if [ -d "$lintcache" ]; then cp -r "$lintcache" "$work/golangci-lint"; else mkdir "$work/golangci-lint"; fi
proxy=$(go env GOPROXY)
if [ -d "$modcache/cache/download" ]; then
	cp -r "$modcache/cache/download" "$work/modules"
	proxy="file://$work/modules,$proxy"
fi
chown -R "$user" "$work"
log "as $user ($(id -u "$user")), in $work/nodeslo-controller ($commit)"

# A clean environment: the user's HOME and Go caches, the stubs first on
# PATH, and only the Go settings the machine needs (its proxy, toolchain).
runuser -u "$user" -- env -i HOME="$home" USER="$user" LANG=C.UTF-8 \
	PATH="$work/stubs:$(dirname "$(command -v go)"):/usr/local/bin:/usr/bin:/bin" \
	GOPROXY="$proxy" GOSUMDB="$(go env GOSUMDB)" GOTOOLCHAIN=local GOFLAGS=-buildvcs=false \
	GOCACHE="$work/go-build" GOLANGCI_LINT_CACHE="$work/golangci-lint" \
	bash -c 'cd "$0" && make verify-generated verify-docs verify-diagrams lint helm-lint test-alerts' \
	"$work/nodeslo-controller"
log "passed in $(( $(date +%s) - start ))s"
