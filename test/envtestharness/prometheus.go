package envtestharness

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// PrometheusBinary is the Prometheus server the specs start: $PROMETHEUS
// (make prometheus builds it from the module promtool comes from), else
// the repository's bin/prometheus.
func PrometheusBinary() string {
	if p := os.Getenv("PROMETHEUS"); p != "" {
		return p
	}
	return RepoPath("bin", "prometheus")
}

// StartPrometheus starts a Prometheus server listening on listen
// (host:port) that scrapes target's /metrics every second, and returns its
// URL once it is ready; it is stopped at the spec's (or container's)
// cleanup.
func StartPrometheus(listen, target string) string {
	ginkgo.GinkgoHelper()
	binary := PrometheusBinary()
	gomega.Expect(binary).To(gomega.BeAnExistingFile(),
		"the Prometheus server is missing: make prometheus builds it into bin/ (or set PROMETHEUS)")
	dir := ginkgo.GinkgoT().TempDir()
	config := fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: nodes
    scrape_interval: 1s
    static_configs: [{targets: [%q]}]
`, target)
	gomega.Expect(os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o600)).To(gomega.Succeed())
	cmd := exec.Command(binary, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+listen, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = ginkgo.GinkgoWriter, ginkgo.GinkgoWriter
	gomega.Expect(cmd.Start()).To(gomega.Succeed())
	ginkgo.DeferCleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	url := "http://" + listen
	gomega.Eventually(func() (int, error) {
		resp, err := http.Get(url + "/-/ready") //nolint:noctx // a readiness probe of a local process
		if err != nil {
			return 0, err
		}
		_ = resp.Body.Close()
		return resp.StatusCode, nil
	}).WithTimeout(time.Minute).Should(gomega.Equal(http.StatusOK), "Prometheus did not get ready")
	return url
}

// documentedQueryPattern finds a metric check's query in docs/rollout.md's
// JSON, quoted as the ConfigMap carries it.
var documentedQueryPattern = regexp.MustCompile(`"query": ("(?:[^"\\]|\\.)*")`)

// DocumentedQuery is the query of the metric check named name in
// docs/rollout.md's recipes, so that a spec runs the recipe as documented.
func DocumentedQuery(name string) string {
	ginkgo.GinkgoHelper()
	doc, err := os.ReadFile(RepoPath("docs/rollout.md"))
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	text := string(doc)
	at := strings.Index(text, fmt.Sprintf(`"name": %q`, name))
	gomega.Expect(at).To(gomega.BeNumerically(">=", 0), "docs/rollout.md has no metric check %s", name)
	found := documentedQueryPattern.FindStringSubmatch(text[at:])
	gomega.Expect(found).NotTo(gomega.BeNil(), "the check %s of docs/rollout.md has no query", name)
	var query string
	gomega.Expect(json.Unmarshal([]byte(found[1]), &query)).To(gomega.Succeed())
	return query
}
