// Package version tells which build of nodeslo-controller is running. The
// release version and the commit are stamped in by the linker (make build,
// make release and the Dockerfile pass the same -X flags, see LDFlags in the
// Makefile), so that the manager, the kubectl plugin and the image of one
// release all report the same version.
package version

import (
	"fmt"
	"runtime"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
)

// Set with -ldflags "-X <package>.version=... -X <package>.revision=...".
// The defaults are what a plain `go build` or `go test` gets: a SemVer
// version below every release, and no commit.
var (
	version  = "v0.0.0-dev"
	revision = "unknown"
)

// Version is the release version, e.g. v0.3.0, or v0.3.0-4-g1a2b3c4 for a
// build 4 commits after v0.3.0 (hack/version.sh says how it is formed).
func Version() string { return version }

// Revision is the full git commit the binary was built from.
func Revision() string { return revision }

// Get returns the build information in the shape Kubernetes components
// report theirs (kubectl version -o json), so that tools reading those read
// this too.
func Get() apimachineryversion.Info {
	info := apimachineryversion.Info{
		GitVersion: version,
		GitCommit:  revision,
		GoVersion:  runtime.Version(),
		Compiler:   runtime.Compiler,
		Platform:   runtime.GOOS + "/" + runtime.GOARCH,
	}
	if v, err := utilversion.ParseSemantic(version); err == nil {
		info.Major, info.Minor = fmt.Sprint(v.Major()), fmt.Sprint(v.Minor())
	}
	return info
}

// String is the one-line form printed by --version and the plugin's
// version command: "v0.3.0 (revision 1a2b3c4..., go1.26.8, linux/amd64)".
func String() string {
	info := Get()
	return fmt.Sprintf("%s (revision %s, %s, %s)", info.GitVersion, info.GitCommit, info.GoVersion, info.Platform)
}
