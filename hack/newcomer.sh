#!/usr/bin/env bash
# The newcomer's path (docs/testing.md#transcripts): a fresh clone of this
# checkout, then the README's "See it work" as written: `make run-local` in
# one shell, and in another the README's export line and `kubectl get
# nodeslo`, which must list the four sample nodes. It shares the Go caches
# and the envtest store (HOME) with what ran before it (.ci/run runs it after
# make test and make test-e2e), so it pays for no build they paid for: only
# the clone's own bin/ is new.
#
# Usage: hack/newcomer.sh [work-dir]   (default: a new temporary directory)
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-}
keep=${work:+1}
work=${work:-$(mktemp -d)}
log() { echo "[newcomer] $*"; }
start=$(date +%s)


git clone -q "$src" "$work/nodeslo-controller"
cd "$work/nodeslo-controller"
log "cloned into $PWD ($(git log -1 --format=%h))"

# The README's `make run-local`, in the foreground of its own shell.
# Job control puts it in a process group of its own, which Ctrl-C's
# SIGINT reaches whole at the end, as in a terminal.
set -m
make run-local >"$work/run-local.log" 2>&1 &
run_local=$!
set +m
stop() {
  kill -INT -- "-$run_local" 2>/dev/null || true
  wait "$run_local" 2>/dev/null || true
  [ -n "$keep" ] || rm -rf "$work"
}
trap stop EXIT

deadline=$(( $(date +%s) + ${NEWCOMER_TIMEOUT:-900} ))
until grep -q '^\[run-local\] ready in ' "$work/run-local.log"; do
  if ! kill -0 "$run_local" 2>/dev/null || [ "$(date +%s)" -gt "$deadline" ]; then
    log "make run-local did not get ready; its output:"
    cat "$work/run-local.log"
    exit 1
  fi
  sleep 2
done
log "make run-local ready after $(( $(date +%s) - start ))s: $(grep '^\[run-local\] ready in ' "$work/run-local.log")"

# "In another terminal", the README's lines, read from the README itself.
readme_export=$(grep -m1 '^\$ export KUBECONFIG=' README.md | sed 's/^\$ //')
[ -n "$readme_export" ] || { log "README.md has no '\$ export KUBECONFIG=' line"; exit 1; }
# The README's first command needs Go 1.26, make and git, nothing else:
# the kubectl found must be bin/'s, not one of the machine's.
out=$(KUBECONFIG= bash -c "$readme_export; command -v kubectl; kubectl get nodeslo" 2>&1) || {
  log "kubectl get nodeslo failed:"; echo "$out"; exit 1; }
kubectl_used=$(head -1 <<<"$out")
out=$(tail -n +2 <<<"$out")
echo "$out"
if [ "$kubectl_used" != "$PWD/bin/kubectl" ]; then
  log "after the README's export line, kubectl is $kubectl_used, not make run-local's $PWD/bin/kubectl"
  exit 1
fi
want="colocation-1 colocation-2 general-1 online-1"
got=$(awk 'NR > 1 {print $1}' <<<"$out" | paste -sd' ')
if [ "$got" != "$want" ]; then
  log "kubectl get nodeslo lists '$got', the README shows '$want'"
  exit 1
fi
log "the README's path works from a fresh clone: 4 NodeSLOs in $(( $(date +%s) - start ))s"
