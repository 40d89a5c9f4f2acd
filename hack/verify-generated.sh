#!/usr/bin/env bash
# Regenerates the CRD, RBAC and deepcopy code and fails if that changed any
# file: generated files must be committed up to date.
# Usage: hack/verify-generated.sh <make> <path>...
set -euo pipefail

make_cmd=${1:?make command}
shift

fingerprint() {
  local files
  files=$(find "$@" -type f 2>/dev/null | sort || true)
  { for f in $files; do echo "== $f"; cat "$f"; done; } | sha256sum
}

before=$(fingerprint "$@")
"$make_cmd" --no-print-directory manifests generate >/dev/null
after=$(fingerprint "$@")
if [ "$before" != "$after" ]; then
  echo "verify-generated: 'make manifests generate' changed generated files; review and commit them:" >&2
  git status --short -- "$@" >&2 2>/dev/null || true
  exit 1
fi
echo "verify-generated: generated files are up to date"
