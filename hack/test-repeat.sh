#!/usr/bin/env bash
# test-repeat.sh: runs the tests N times in a row and counts the runs that
# passed and failed, so that anyone can measure how flaky they are
# (docs/testing.md, "Measuring flakiness").
#
#   hack/test-repeat.sh N           make test, N times
#   hack/test-repeat.sh N FILTER    internal/controller's envtest suite
#                                   with Ginkgo's -label-filter FILTER (a
#                                   label such as gates, or an expression),
#                                   built once and run N times
#
# Each run's log is kept in bin/test-repeat/run-K.log; a failed run's last
# lines are printed. The last line is "test-repeat: P passed, F failed".
# KUBEBUILDER_ASSETS and PROMETHEUS must be set for a FILTER run (make
# test-repeat sets them). Exit status: 0 when every run passed.
set -uo pipefail

runs=${1:?how many runs}
filter=${2:-}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "test-repeat.sh: N must be a positive count, not \"$runs\"" >&2; exit 2; }
cd "$(dirname "$0")/.."
logs=bin/test-repeat
mkdir -p "$logs"
rm -f "$logs"/run-*.log

if [[ -n $filter ]]; then
	: "${KUBEBUILDER_ASSETS:?set KUBEBUILDER_ASSETS (make test-repeat does)}"
	binary=$(pwd)/$logs/controller.test
	CGO_ENABLED=1 go test -race -c -o "$binary" ./internal/controller || exit 1
	what="internal/controller with label filter \"$filter\""
	run() { (cd internal/controller && "$binary" -test.count=1 -test.timeout=15m -test.run '^TestControllers$' \
		-ginkgo.label-filter="$filter" -ginkgo.fail-on-empty); }
else
	what="make test"
	run() { make --no-print-directory test; }
fi

passed=0 failed=0 all_start=$(date +%s)
for ((k = 1; k <= runs; k++)); do
	log=$logs/run-$k.log start=$(date +%s)
	if run >"$log" 2>&1; then
		passed=$((passed + 1)) verdict=pass
	else
		failed=$((failed + 1)) verdict=FAIL
	fi
	echo "test-repeat: run $k of $runs ($what): $verdict in $(($(date +%s) - start))s, log $log"
	if [[ $verdict == FAIL ]]; then
		grep -E '^\s*(\[FAIL\]|--- FAIL|FAIL\b)|Timed out|Expected' "$log" | head -20 | sed 's/^/    /'
	fi
done
echo "test-repeat: $runs runs of $what in $(($(date +%s) - all_start))s"
echo "test-repeat: $passed passed, $failed failed"
((failed == 0))
