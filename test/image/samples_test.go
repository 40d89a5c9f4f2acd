//go:build image

package image

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// sampleNodeSLORows are the `kubectl get nodeslo --no-headers` rows (without
// AGE) config/samples' ConfigMap gives its four Nodes, as test/e2e reads them.
var sampleNodeSLORows = []string{
	"general-1 true 65 70 none",
	"colocation-1 true 80 85 auto",
	"colocation-2 true 80 85 auto",
	"online-1 false 65 70 none",
}

// brokenKey and brokenPath are where brokenSampleConfigMap breaks the sample.
const (
	brokenKey  = "resource-threshold-config"
	brokenPath = "clusterStrategy.cpuSuppressThresholdPercent"
)

// brokenSampleConfigMap is config/samples' ConfigMap with a threshold out of
// its bounds (150%), as JSON for kubectl apply.
func brokenSampleConfigMap() string {
	GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join(root, "config", "samples", "slo-controller-config.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var cm corev1.ConfigMap
	Expect(yaml.Unmarshal(raw, &cm)).To(Succeed())
	Expect(cm.Data).To(HaveKey(brokenKey))
	cm.Data[brokenKey] = `{"clusterStrategy": {"cpuSuppressThresholdPercent": 150}}`
	out, err := json.Marshal(cm)
	Expect(err).NotTo(HaveOccurred())
	return string(out)
}

// rows returns kubectl's table rows single-spaced, without the AGE column.
func rows(table string) []string {
	var out []string
	for line := range strings.SplitSeq(strings.TrimSpace(table), "\n") {
		fields := strings.Fields(line)
		if len(fields) > 1 {
			out = append(out, strings.Join(fields[:len(fields)-1], " "))
		}
	}
	return out
}
