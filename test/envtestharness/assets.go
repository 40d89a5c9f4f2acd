package envtestharness

import (
	"os"
	"path/filepath"

	"github.com/onsi/ginkgo/v2"
)

// AssetsDir returns the directory of kube-apiserver and etcd that
// KUBEBUILDER_ASSETS names, and fails the spec saying how to get them when
// it is unset or lacks them: envtest alone would report a missing binary
// in a default directory nobody chose.
func AssetsDir() string {
	ginkgo.GinkgoHelper()
	dir := os.Getenv("KUBEBUILDER_ASSETS")
	if dir == "" {
		ginkgo.Fail("KUBEBUILDER_ASSETS is not set. `make test` sets it; to run a suite alone, " +
			"`make setup-envtest` provides kube-apiserver and etcd and " +
			"`hack/setup-envtest.sh bin/setup-envtest <ENVTEST_K8S_VERSION> <ENVTEST_ETCD_VERSION>` " +
			"(versions in the Makefile) prints the directory to export")
	}
	for _, binary := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, binary)); err != nil {
			ginkgo.Fail("KUBEBUILDER_ASSETS=" + dir + " has no " + binary + ": run `make setup-envtest`")
		}
	}
	return dir
}
