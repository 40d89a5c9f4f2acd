//go:build cluster

package cluster

import (
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// rolloutName is the NodeSLORollout whose spec.strategy is the staged
// rollout's policy (docs/rollout.md#the-strategy): the ConfigMap's name, in
// its namespace. The manager never creates it; make deploy and the chart
// may, with a strategy of their own.
const rolloutName = configMapName

// setStrategy makes strategy (JSON: the fields of spec.strategy) the
// NodeSLORollout's spec.strategy, as a whole, creating the NodeSLORollout
// when there is none; its controls (paused, resume, retry) are left as
// they are. It waits until the controller has taken the strategy up, so
// that a change of the ConfigMap written next rolls out under it (they are
// two objects, which the controller's cache may see in either order). It
// returns what puts back the strategy there was before, or removes the
// strategy when there was none (the NodeSLORollout is kept, with the
// record of the rollouts it saw).
func setStrategy(strategy string) (restore func()) {
	GinkgoHelper()
	Expect(json.Valid([]byte(strategy))).To(BeTrue(), "the strategy %s", strategy)
	exists := strings.TrimSpace(kube.mustRun("get", "nodeslorollout", rolloutName, "-n", namespace,
		"--ignore-not-found", "-o", "name")) != ""
	before := ""
	if exists {
		before = strings.TrimSpace(kube.mustRun("get", "nodeslorollout", rolloutName, "-n", namespace,
			"-o", "jsonpath={.spec.strategy}"))
		patchStrategy(strategy)
	} else {
		manifest, err := json.Marshal(map[string]any{
			"apiVersion": "nodeslo.koordinator.sh/v1alpha1",
			"kind":       "NodeSLORollout",
			"metadata":   map[string]string{"name": rolloutName, "namespace": namespace},
			"spec":       map[string]any{"strategy": json.RawMessage(strategy)},
		})
		Expect(err).NotTo(HaveOccurred())
		kube.mustRunWithInput(string(manifest), "create", "-f", "-")
	}
	waitStrategyTakenUp()
	return func() {
		GinkgoHelper()
		if before == "" {
			kube.mustRun("patch", "nodeslorollout", rolloutName, "-n", namespace, "--type=merge",
				"-p", `{"spec": {"strategy": null}}`)
		} else {
			patchStrategy(before)
		}
		waitStrategyTakenUp()
	}
}

// patchStrategy replaces the NodeSLORollout's spec.strategy with strategy
// (JSON) in one write: a JSON patch's add replaces the whole value, where a
// merge patch would keep the fields strategy leaves out.
func patchStrategy(strategy string) {
	GinkgoHelper()
	patch, err := json.Marshal([]map[string]any{
		{"op": "add", "path": "/spec/strategy", "value": json.RawMessage(strategy)},
	})
	Expect(err).NotTo(HaveOccurred())
	kube.mustRun("patch", "nodeslorollout", rolloutName, "-n", namespace, "--type=json", "-p", string(patch))
}

// waitStrategyTakenUp waits until the NodeSLORollout's status was decided
// on its spec as it is (status.observedGeneration).
func waitStrategyTakenUp() {
	GinkgoHelper()
	converges(func() error {
		out, err := kube.run("get", "nodeslorollout", rolloutName, "-n", namespace,
			"-o", "jsonpath={.metadata.generation} {.status.observedGeneration}")
		if err != nil {
			return err
		}
		if f := strings.Fields(out); len(f) != 2 || f[0] != f[1] {
			return fmt.Errorf("generation, observedGeneration: %q", out)
		}
		return nil
	}).Should(Succeed(), "the controller took up the NodeSLORollout's spec")
}
