package envtestharness

import (
	"os"
	"path/filepath"

	"github.com/onsi/ginkgo/v2"
)

// RepoPath returns the absolute path of a file of the repository
// (config/crd/bases, say), the same from whichever package's directory a
// suite runs in: it looks up from there for go.mod.
func RepoPath(elem ...string) string {
	dir, err := os.Getwd()
	if err != nil {
		ginkgo.Fail("envtestharness: " + err.Error())
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(append([]string{dir}, elem...)...)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			ginkgo.Fail("envtestharness: no go.mod above the working directory: run the suites with go test")
		}
		dir = parent
	}
}
