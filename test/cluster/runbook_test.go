//go:build cluster

package cluster

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/test/nodecluster"
)

// runbook is a page of docs/ whose shell blocks a scenario runs as written.
// A block to run is a ```sh fence right after a line
// `<!-- runbook: NAME -->` (both may be indented, as in a list item); the scenario runs them by NAME, in a working
// directory of its own (the backups the page writes land there), with
// bin/ and the cluster's kubectl first on PATH and KUBECONFIG set.
type runbook struct {
	page   string
	blocks map[string]string
	// replace turns the page's placeholders (the image's name, dist/chart)
	// into this run's.
	replace *strings.Replacer
	dir     string
}

var runbookBlock = regexp.MustCompile("(?s)<!-- runbook: ([a-z0-9-]+) -->\n *```sh\n(.*?)\n *```")

// readRunbook reads page (a path under the repository) and its blocks.
func readRunbook(page string, replace *strings.Replacer) *runbook {
	GinkgoHelper()
	text, err := os.ReadFile(filepath.Join(root, page))
	Expect(err).NotTo(HaveOccurred())
	book := &runbook{page: page, blocks: map[string]string{}, replace: replace, dir: GinkgoT().TempDir()}
	for _, m := range runbookBlock.FindAllStringSubmatch(string(text), -1) {
		Expect(book.blocks).NotTo(HaveKey(m[1]), "%s: two blocks named %s", page, m[1])
		book.blocks[m[1]] = m[2]
	}
	return book
}

// run runs the block name and returns its output (stdout and stderr);
// it fails the spec if the block fails.
func (b *runbook) run(name string) string {
	GinkgoHelper()
	out, err := b.runMayFail(name)
	Expect(err).NotTo(HaveOccurred(), "%s, block %s:\n%s", b.page, name, out)
	return out
}

// runMayFail runs the block name and returns its output and how it ended.
func (b *runbook) runMayFail(name string) (string, error) {
	GinkgoHelper()
	script, ok := b.blocks[name]
	Expect(ok).To(BeTrue(), "%s has no block `<!-- runbook: %s -->`", b.page, name)
	script = b.replace.Replace(script)
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = b.dir
	// helm's environment (KUBECONFIG, its homes in the working directory),
	// and bin/ then the cluster's kubectl first on PATH.
	cmd.Env = append(os.Environ(), newHelm(node, filepath.Join(b.dir, ".helm")).env...)
	cmd.Env = append(cmd.Env, "PATH="+strings.Join(
		[]string{filepath.Join(root, "bin"), filepath.Dir(node.Kubectl()), os.Getenv("PATH")}, string(os.PathListSeparator)))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	GinkgoWriter.Printf("--- %s, block %s:\n%s\n%s--- (%v)\n", b.page, name, script, out.String(), err)
	return out.String(), err
}

// file is the content of a file a block wrote into the working directory.
func (b *runbook) file(name string) string {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(b.dir, name))
	Expect(err).NotTo(HaveOccurred(), "the runbook's blocks wrote no %s", name)
	return string(data)
}

// imageReplacer replaces the docs' example image with the loaded one, and
// the chart's and the CRDs' relative paths with the repository's.
func imageReplacer() *strings.Replacer {
	repository, tag := nodecluster.SplitImage(image)
	bases := filepath.Join(root, "config", "crd", "bases")
	return strings.NewReplacer(
		"registry.example.com/nodeslo-controller", repository,
		"--set manager.image.tag=$(hack/version.sh)", fmt.Sprintf("--set manager.image.tag=%s", tag),
		" dist/chart ", " "+filepath.Join(root, "dist", "chart")+" ",
		// make build-installer's dist/crds.yaml is config/crd's two CRDs,
		// the files of config/crd/bases.
		" dist/crds.yaml", " "+bases,
	)
}
