package controller

import (
	"context"
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
)

// cachedMetadata stands in for the manager's cache: the Nodes and the
// NodeSLOs it holds, by the kind of list asked for.
type cachedMetadata struct {
	client.Reader
	nodes, nodeSLOs []metav1.PartialObjectMetadata
}

func (c cachedMetadata) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	l, ok := list.(*metav1.PartialObjectMetadataList)
	if !ok {
		return fmt.Errorf("unexpected list %T", list)
	}
	switch kind := l.GetObjectKind().GroupVersionKind().Kind; kind {
	case "NodeList":
		l.Items = append(l.Items[:0], c.nodes...)
	case "NodeSLOList":
		l.Items = append(l.Items[:0], c.nodeSLOs...)
	default:
		return fmt.Errorf("unexpected list of kind %q", kind)
	}
	return nil
}

// Each node is judged by its NodeSLO's digest annotation against the spec
// the configuration resolves for it: held, missing, another spec, or
// vouching for none (edited at a later generation); every reason has a
// series, 0 included.
func TestOutOfDateNodesCountsEachReason(t *testing.T) {
	cfg := sloconfig.Load(map[string]string{string(sloconfig.KeyCPUBurst): `{"clusterStrategy": {"policy": "auto"},
		"nodeStrategies": [{"name": "gpu", "nodeSelector": {"matchLabels": {"tier": "gpu"}},
		"policy": "cpuBurstOnly"}]}`}, nil)
	if !cfg.Valid() {
		t.Fatalf("invalid configuration: %v", cfg.Reports())
	}
	type object = metav1.PartialObjectMetadata
	node := func(name, tier string) object {
		return object{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"tier": tier}}}
	}
	// stamped is the NodeSLO of n at generation, its annotation (of the
	// generation annotated) vouching for the spec of a node of tier.
	stamped := func(n object, tier string, generation, annotated int64) object {
		as := node(n.Name, tier)
		res := cfg.Resolve(sloconfig.NodeOf(&as), nil)
		digest := cfg.StoredFormOf(&res, nil).Digest
		return object{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Generation: generation,
			Annotations: map[string]string{storedslo.SpecDigestAnnotation: storedslo.FormatSpecDigest(annotated, digest)}}}
	}
	upToDate, gpu, missing, relabelled, edited := node("up-to-date", "cpu"), node("gpu", "gpu"), node("missing", "cpu"),
		node("relabelled", "gpu"), node("edited", "cpu")
	cache := cachedMetadata{
		nodes: []object{upToDate, gpu, missing, relabelled, edited},
		nodeSLOs: []object{
			stamped(upToDate, "cpu", 3, 3),
			stamped(gpu, "gpu", 1, 1),
			stamped(relabelled, "cpu", 2, 2), // written before the node moved to tier gpu
			stamped(edited, "cpu", 5, 4),     // its spec changed since the write
			stamped(node("gone", "cpu"), "cpu", 1, 1),
		},
	}
	published := &snapshots{}
	published.publish(&Snapshot{Config: cfg})

	got := outOfDateSeries(t, newOutOfDateNodes(published, cache))
	want := map[string]float64{OutOfDateMissing: 1, OutOfDateDiffers: 1, OutOfDateEdited: 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("series %v, want %v", got, want)
	}
}

// Before the first load, and under a Frozen key (resolved from each
// stored spec, which the cache does not hold), nothing is claimed.
func TestOutOfDateNodesClaimsNothingItCannotKnow(t *testing.T) {
	cache := cachedMetadata{nodes: []metav1.PartialObjectMetadata{{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}}}
	if got := outOfDateSeries(t, newOutOfDateNodes(&snapshots{}, cache)); len(got) != 0 {
		t.Errorf("before the first load: series %v, want none", got)
	}
	invalid := map[string]string{string(sloconfig.KeyCPUBurst): `{"clusterStrategy": {"policy": "nope"}}`}
	frozen := sloconfig.Load(invalid, nil)
	if !frozen.ReadsStoredSpec() {
		t.Fatalf("an invalid key without a last good value is not Frozen: %v", frozen.Reports())
	}
	published := &snapshots{}
	published.publish(&Snapshot{Config: frozen})
	if got := outOfDateSeries(t, newOutOfDateNodes(published, cache)); len(got) != 0 {
		t.Errorf("under a Frozen key: series %v, want none", got)
	}
}

// outOfDateSeries scrapes o once: reason -> value.
func outOfDateSeries(t *testing.T, o *outOfDateNodes) map[string]float64 {
	t.Helper()
	ch := make(chan prometheus.Metric, 10)
	o.Collect(ch)
	close(ch)
	out := map[string]float64{}
	for m := range ch {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		out[d.GetLabel()[0].GetValue()] = d.GetGauge().GetValue()
	}
	return out
}
