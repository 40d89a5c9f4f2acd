package chart

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// rolloutHook is the hook the chart creates its NodeSLORollout by: Helm
// cannot build an object whose CRD the same release installs.
const rolloutHook = "post-install"

// rolloutsOf returns the chart's NodeSLORollouts by key.
func rolloutsOf(objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	out := map[string]*unstructured.Unstructured{}
	for _, obj := range objs {
		if obj.GetKind() == "NodeSLORollout" {
			out[objectKey(obj)] = obj
		}
	}
	return out
}

// The chart creates the NodeSLORollout of the ConfigMap once, at install:
// a post-install hook Helm neither upgrades nor deletes (it keeps the
// rollout's state), with the conservative strategy of config/rollout unless
// rollout.strategy says otherwise; rollout.create=false leaves it out.
// test/e2e installs it for real.
func TestTheNodeSLORolloutIsCreatedOnceAtInstall(t *testing.T) {
	rollouts := rolloutsOf(helmTemplate(t))
	const key = "NodeSLORollout/koordinator-system/slo-controller-config"
	rollout, ok := rollouts[key]
	if !ok || len(rollouts) != 1 {
		t.Fatalf("the defaults render the NodeSLORollouts %v, want %s alone", keys(rollouts), key)
	}
	annotations := rollout.GetAnnotations()
	if annotations["helm.sh/hook"] != rolloutHook || annotations["helm.sh/hook-delete-policy"] != "hook-failed" {
		t.Errorf("%s: annotations %v, want a post-install hook deleted only when it fails", key, annotations)
	}
	var configStrategy any
	for _, obj := range kustomizeBuild(t) {
		if obj.GetKind() == "NodeSLORollout" {
			configStrategy, _, _ = unstructured.NestedFieldNoCopy(obj.Object, "spec", "strategy")
		}
	}
	strategy, _, _ := unstructured.NestedFieldNoCopy(rollout.Object, "spec", "strategy")
	if configStrategy == nil || !reflect.DeepEqual(strategy, configStrategy) {
		t.Errorf("the chart's strategy %v, config/rollout's %v: want the same", strategy, configStrategy)
	}

	moved := rolloutsOf(helmTemplate(t, "config.namespace=koord", "config.name=slo-config",
		"rollout.strategy.maxNodesPerStep=1"))
	movedKey := "NodeSLORollout/koord/slo-config"
	if _, ok := moved[movedKey]; !ok || len(moved) != 1 {
		t.Fatalf("with config.namespace=koord, config.name=slo-config: NodeSLORollouts %v, want %s alone",
			keys(moved), movedKey)
	}
	if step, _, _ := unstructured.NestedFieldNoCopy(moved[movedKey].Object, "spec", "strategy",
		"maxNodesPerStep"); step != float64(1) {
		t.Errorf("rollout.strategy.maxNodesPerStep=1 renders maxNodesPerStep %v (%T)", step, step)
	}

	if none := rolloutsOf(helmTemplate(t, "rollout.create=false")); len(none) != 0 {
		t.Errorf("rollout.create=false renders %v", keys(none))
	}
}

func keys(objs map[string]*unstructured.Unstructured) []string {
	out := make([]string, 0, len(objs))
	for k := range objs {
		out = append(out, k)
	}
	return out
}
