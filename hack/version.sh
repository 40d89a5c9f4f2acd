#!/usr/bin/env bash
# Prints the version every artifact of a build is stamped with (the binaries
# through -ldflags -X, the chart, the image tag, the krew manifest).
#
#   hack/version.sh            the version:
#     v0.3.0                   on the commit tagged v0.3.0, clean tree
#     v0.3.0-4-g1a2b3c4        4 commits after v0.3.0
#     v0.3.0-dirty             ... with uncommitted changes (suffix -dirty)
#     v0.0.0-dev               without a v* tag, or outside a git checkout
#   hack/version.sh revision   the full commit (with -dirty), or "unknown"
#
# Every form is a SemVer 2 version with a leading v (the later parts are a
# pre-release), so Helm takes it as a chart version and it sorts below the
# next release. Only tags of the form vX.Y.Z count.
set -euo pipefail
cd "$(dirname "$0")/.."

in_checkout() { git rev-parse --is-inside-work-tree >/dev/null 2>&1; }

case "${1:-version}" in
version)
	if in_checkout && described=$(git describe --tags --match 'v[0-9]*.[0-9]*.[0-9]*' --dirty 2>/dev/null); then
		echo "$described"
	else
		echo "v0.0.0-dev"
	fi
	;;
revision)
	if in_checkout && commit=$(git rev-parse HEAD 2>/dev/null); then
		if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
			commit="$commit-dirty"
		fi
		echo "$commit"
	else
		echo "unknown"
	fi
	;;
*)
	echo "usage: $0 [version|revision]" >&2
	exit 2
	;;
esac
