package controller

import (
	"maps"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// inputChange changes one input of a node, under a configuration for which
// that input decides the node's spec.
type inputChange struct {
	change func(n *sloconfig.Node)
	data   map[string]string
}

// tierLabel is the label byTierLabel selects on.
const tierLabel = "tier"

// byTierLabel is a configuration under which the tier label decides the spec.
var byTierLabel = map[string]string{string(sloconfig.KeySystem): `{"clusterStrategy": {"minFreeKbytesFactor": 100},
	"nodeStrategies": [{"nodeSelector": {"matchLabels": {"tier": "b"}}, "minFreeKbytesFactor": 150}]}`}

// fieldChanges has one change per field of sloconfig.Node that is an input,
// annotationChanges one per input annotation. A field or annotation added
// without a case here fails the test below.
var (
	fieldChanges = map[string]inputChange{
		"Labels": {func(n *sloconfig.Node) { n.Labels = map[string]string{tierLabel: "b"} }, byTierLabel},
		// "Annotations" is checked one input annotation at a time.
	}
	annotationChanges = map[string]inputChange{
		sloconfig.NetworkBandwidthAnnotation: {func(n *sloconfig.Node) {
			n.Annotations = map[string]string{sloconfig.NetworkBandwidthAnnotation: "10G"}
		}, nil},
	}
	// notInputs are the fields of sloconfig.Node that name a node rather
	// than feed its spec.
	notInputs = map[string]bool{"Name": true}
)

// Every input of sloconfig.Node reaches every place that depends on it:
// the Node cache's transform keeps it, the Node watch lets its change
// through, a rollout gate resolves a held node whose input changed again
// against the configuration in force for it, and
// Resolve gives a different spec. A new input wired into only some of them
// fails here.
func TestEveryNodeInputReachesEveryConsumer(t *testing.T) {
	cases := map[string]inputChange{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[sloconfig.Node]()) {
		switch c, ok := fieldChanges[f.Name]; {
		case notInputs[f.Name] || f.Name == "Annotations":
		case !ok:
			t.Errorf("sloconfig.Node.%s has no case in fieldChanges: wire it through sloconfig/node_inputs.go "+
				"(NodeOf, TrimToInputs, SameInputs) and Resolve, then add one", f.Name)
		default:
			cases["field "+f.Name] = c
		}
	}
	for _, a := range sloconfig.InputAnnotations() {
		c, ok := annotationChanges[a]
		if !ok {
			t.Errorf("input annotation %s has no case in annotationChanges", a)
			continue
		}
		cases["annotation "+a] = c
	}
	for name, c := range cases {
		base := sloconfig.Node{Name: "n1", Labels: map[string]string{tierLabel: "a"}}
		changed := sloconfig.Node{Name: "n1", Labels: map[string]string{tierLabel: "a"}}
		c.change(&changed)
		t.Run(name, func(t *testing.T) { checkInputConsumers(t, base, changed, c.data) })
	}
}

func checkInputConsumers(t *testing.T, base, changed sloconfig.Node, data map[string]string) {
	asObject := func(n sloconfig.Node) *metav1.PartialObjectMetadata {
		annotations := map[string]string{"unrelated": "x"}
		maps.Copy(annotations, n.Annotations)
		labels := maps.Clone(n.Labels)
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Name: n.Name, Labels: labels, Annotations: annotations,
		}}
	}

	trimmed, err := keepNodeResolveInputs()(asObject(changed))
	if err != nil {
		t.Fatal(err)
	}
	if kept := sloconfig.NodeOf(trimmed.(*metav1.PartialObjectMetadata)); !kept.SameInputs(changed) {
		t.Errorf("the Node cache's transform drops it: kept %+v of %+v", kept, changed)
	}

	if !nodeInputsChanged().Update(event.UpdateEvent{ObjectOld: asObject(base), ObjectNew: asObject(changed)}) {
		t.Error("the Node watch drops its change")
	}

	cfg := sloconfig.Load(data, nil)
	baseSpec, changedSpec := cfg.Resolve(base, nil).Spec, cfg.Resolve(changed, nil).Spec
	if sloconfig.SpecEqual(&baseSpec, &changedSpec) {
		t.Error("Resolve does not see it")
	}

	// A paused rollout of another threshold holds the node on cfg, the
	// configuration in force for it; once the input changes, it is
	// written with what cfg resolves for it now, not with the target.
	withRollout := map[string]string{}
	maps.Copy(withRollout, data)
	withRollout[string(sloconfig.KeyResourceThreshold)] =
		`{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 12}}`
	target := sloconfig.Load(withRollout, nil)
	plan := rollout.Memory{}.Plan(rollout.PlanInput{
		Rollout: rollout.LoadStrategy(&nodeslov1alpha1.NodeSLORolloutSpec{
			Strategy: &nodeslov1alpha1.RolloutStrategy{}, Paused: true}, nil),
		Config: target, Before: []*sloconfig.Config{cfg},
		Nodes: []rollout.Observed{{Node: base, Stored: &baseSpec}},
		Now:   time.Now(),
	})
	stored := rollout.StoredNode{Exists: true, Spec: &baseSpec}
	if !plan.Gate.Has(base.Name) || rollout.ChooseNode(target, nil, plan.Gate, base, stored).Action != rollout.NodeHeld {
		t.Fatal("the paused rollout does not hold the node (test set-up)")
	}
	choice := rollout.ChooseNode(target, nil, plan.Gate, changed, stored)
	if choice.Action != rollout.NodeWrite || !sloconfig.SpecEqual(&choice.Resolution.Spec, &changedSpec) {
		t.Error("a held node whose input changed is not resolved again against the configuration in force for it")
	}
}
