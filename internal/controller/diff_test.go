package controller_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/sets"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/internal/plugin"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// kubectl nodeslo diff, run against this real apiserver before a ConfigMap
// is applied, must name exactly the nodes and fields the controller then
// changes (docs/rollout.md).
var _ = Describe("kubectl nodeslo diff", Serial, func() {
	It("names exactly the nodes and fields that change when the file is applied", func(ctx SpecContext) {
		threshold, burst := string(sloconfig.KeyResourceThreshold), string(sloconfig.KeyCPUBurst)
		before := map[string]string{threshold: suppressAt55}
		setConfig(ctx, before)
		names := make([]string, 0, 6)
		for i := range 6 {
			labels := map[string]string{}
			if i%2 == 0 {
				labels[tierLabel] = gold
			}
			names = append(names, createNode(ctx, labels, nil).Name)
		}
		for _, n := range names {
			Eventually(specOf(ctx, n)).
				Should(haveField(55.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))
		}
		settle()
		stored := map[string]map[string]any{}
		for _, n := range names {
			spec, err := specOf(ctx, n)()
			Expect(err).NotTo(HaveOccurred())
			stored[n] = spec
		}

		// Gold nodes get another threshold and every node another burst policy.
		after := maps.Clone(before)
		after[threshold] = `{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 55},
			"nodeStrategies": [{"name": "gold", "nodeSelector": {"matchLabels": {"tier": "gold"}},
			"cpuSuppressThresholdPercent": 40}]}`
		after[burst] = autoBurst
		inputs, err := plugin.FetchDiffInputs(ctx, k8sClient, after)
		Expect(err).NotTo(HaveOccurred())
		predicted := map[string][]string{}
		for _, d := range plugin.Diff(inputs).Changed {
			if slices.Contains(names, d.Node) {
				Expect(d.Created).To(BeFalse(), d.Node)
				for _, c := range d.Changes {
					predicted[d.Node] = append(predicted[d.Node], c.Path+" -> "+c.New)
				}
			}
		}

		setConfig(ctx, after)
		Eventually(func(g Gomega) {
			actual := map[string][]string{}
			for _, n := range names {
				spec, err := specOf(ctx, n)()
				g.Expect(err).NotTo(HaveOccurred())
				if changes := leafChanges("spec", stored[n], spec); len(changes) > 0 {
					actual[n] = changes
				}
			}
			g.Expect(actual).To(Equal(predicted))
		}).WithContext(ctx).Should(Succeed())
		Expect(predicted).To(HaveLen(6))
		Expect(predicted[names[0]]).To(ConsistOf(
			"spec.cpuBurstStrategy.policy -> \"auto\"", "spec.resourceUsedThresholdWithBE.cpuSuppressThresholdPercent -> 40"))
		Expect(predicted[names[1]]).To(ConsistOf("spec.cpuBurstStrategy.policy -> \"auto\""))
	})
})

// leafChanges lists, as "path -> new value (compact JSON)", the leaves of
// two generic JSON trees that differ: written independently of the plugin's
// own comparison, so that the test checks it.
func leafChanges(path string, old, updated any) []string {
	oldObj, oldIsObj := old.(map[string]any)
	newObj, newIsObj := updated.(map[string]any)
	if oldIsObj && newIsObj {
		keys := sets.List(sets.KeySet(oldObj).Union(sets.KeySet(newObj)))
		out := make([]string, 0, len(keys))
		for _, k := range keys {
			out = append(out, leafChanges(path+"."+k, oldObj[k], newObj[k])...)
		}
		return out
	}
	o, _ := json.Marshal(old)
	n, _ := json.Marshal(updated)
	if string(o) == string(n) {
		return nil
	}
	if updated == nil {
		return []string{fmt.Sprintf("%s -> <none>", path)}
	}
	return []string{fmt.Sprintf("%s -> %s", path, n)}
}
