#!/usr/bin/env bash
# test-packages.sh: go test for a list of packages, the way make test runs
# them. Each package's test binary is built into DIR by one `go test -c`,
# which links a binary only when the one already in DIR is out of date (a
# link is about a fifth of a warm make test's CPU, and go test links every
# binary on every run); then each runs in its package's directory, as many
# at once as there are cores, as go test runs them. Its output is printed
# when it fails, its one-line summary when it passes; the packages' coverage
# profiles are merged into PROFILE.
#
#   hack/test-packages.sh DIR PROFILE [go test build flags...] -- PACKAGES...
#
# The build flags must include -cover (and the -covermode wanted). The
# environment is passed on (CGO_ENABLED, GOFLAGS, KUBEBUILDER_ASSETS, ...).
# Exit status: 0 when every package passed, 1 otherwise.
set -euo pipefail

dir=${1:?directory for the test binaries}
profile=${2:?coverage profile to write}
shift 2
flags=()
while (($# > 0)) && [[ $1 != -- ]]; do
	flags+=("$1")
	shift
done
[[ ${1:-} == -- ]] || { echo "test-packages.sh: no -- before the packages" >&2; exit 2; }
shift
packages=("$@")
module=$(go list -m)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd) # the binaries run in their packages' directories
rm -f "$dir"/*.cover "$dir"/*.log

# The packages that have tests: only they are built, and a binary left in
# DIR from before a package's last test was deleted must not run.
declare -A tested=()
with_tests=()
while read -r pkg; do
	[[ -n $pkg ]] || continue
	tested[$pkg]=1
	with_tests+=("$pkg")
done < <(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' "${packages[@]}")

# One build for all: go test -c -o DIR/ names each binary after the last
# element of its package's path (and fails if two packages with tests share
# it; packages without tests, such as api/slo/v1alpha1 and
# api/nodeslo/v1alpha1, are not built).
if ((${#with_tests[@]} > 0)); then
	go test -c "${flags[@]}" -o "$dir/" "${with_tests[@]}"
fi

# run PACKAGE: runs its binary, if it has tests, and prints go test's line.
run() {
	local pkg=$1 name binary log start status=0
	name=${pkg##*/}
	binary=$dir/$name.test
	if [[ -z ${tested[$pkg]:-} ]]; then
		printf '?   \t%s\t[no test files]\n' "$pkg"
		return 0
	fi
	log=$dir/$name.log
	start=$(date +%s%N)
	(cd "${pkg#"$module"/}" && "$binary" -test.paniconexit0 -test.timeout=10m \
		-test.coverprofile="$dir/$name.cover") >"$log" 2>&1 || status=$?
	local ms=$((($(date +%s%N) - start) / 1000000)) took
	took=$(printf '%d.%03ds' $((ms / 1000)) $((ms % 1000)))
	if ((status == 0)); then
		printf 'ok  \t%s\t%s\t%s\n' "$pkg" "$took" "$(grep -m1 '^coverage:' "$log" || echo 'coverage: [no statements]')"
	else
		cat "$log"
		printf 'FAIL\t%s\t%s\n' "$pkg" "$took"
	fi
	return "$status"
}

parallel=$(nproc)
failed=0
running=0
for pkg in "${packages[@]}"; do
	if ((running >= parallel)); then
		wait -n || failed=1
		running=$((running - 1))
	fi
	run "$pkg" &
	running=$((running + 1))
done
while ((running > 0)); do
	wait -n || failed=1
	running=$((running - 1))
done

{
	echo "mode: $(sed -n 's/^mode: //p' "$dir"/*.cover 2>/dev/null | head -1)"
	for f in "$dir"/*.cover; do [[ -e $f ]] && tail -n +2 "$f"; done
} >"$profile"
exit "$failed"
