# Sourced by hack/build-envtest-binaries.sh and
# hack/cluster/build-node-binaries.sh: the module set-up and link flags that
# build commands of k8s.io/kubernetes from the Go module proxy.
#
# k8s.io/kubernetes points its staging modules (k8s.io/api, k8s.io/apiserver,
# ...) at local directories, so a module that requires it must replace each
# with its published release, v0.<minor>.<patch>.

# kubernetes_module DIR NAME K8S_VERSION CMD...: makes DIR a module NAME
# that requires k8s.io/kubernetes at K8S_VERSION, its staging modules
# replaced, and gets the packages k8s.io/kubernetes/cmd/CMD.
kubernetes_module() {
  local dir=$1 name=$2 version=$3
  shift 3
  local staging="v0.${version#*.}"
  (
    cd "$dir"
    go mod init "$name" >/dev/null 2>&1
    go mod edit -go="$(go env GOVERSION | sed 's/^go//; s/\([0-9]*\.[0-9]*\).*/\1/').0"
    local modfile mod cmd
    modfile=$(go mod download -json "k8s.io/kubernetes@v${version}" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
    for mod in $(sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$modfile"); do
      go mod edit -replace="${mod}=${mod}@${staging}"
    done
    go mod edit -require="k8s.io/kubernetes@v${version}"
    for cmd in "$@"; do
      # Quiet when it works; its output again when it does not.
      GOFLAGS=-mod=mod go get "k8s.io/kubernetes/cmd/${cmd}@v${version}" >/dev/null 2>&1 || \
        GOFLAGS=-mod=mod go get "k8s.io/kubernetes/cmd/${cmd}@v${version}"
    done
  )
}

# kubernetes_ldflags K8S_VERSION: the link flags of a release build of that
# version (stripped; the version as `--version` and /version report it).
kubernetes_ldflags() {
  local version=$1 minor pkg flags="-s -w"
  minor=${version#*.}; minor=${minor%%.*}
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X ${pkg}.gitVersion=v${version} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor}"
    flags+=" -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=1970-01-01T00:00:00Z"
  done
  echo "$flags"
}
