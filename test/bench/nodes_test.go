package main

import (
	"encoding/json"
	"testing"
)

// The bench's nodes must stay as big as the figures assume: about
// 9 KB with 20 labels, 4 annotations, 6 conditions and 30 images.
func TestRealisticNodeShape(t *testing.T) {
	for _, i := range []int{0, 1, 9999} {
		n := realisticNode(i)
		if len(n.Labels) != labelsN || len(n.Annotations) != 4 || len(n.Status.Conditions) != 6 ||
			len(n.Status.Images) != imagesN {
			t.Errorf("node %d: %d labels, %d annotations, %d conditions, %d images", i,
				len(n.Labels), len(n.Annotations), len(n.Status.Conditions), len(n.Status.Images))
		}
		data, err := json.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("node %d: %d bytes", i, len(data))
		if len(data) < 8500 || len(data) > 10000 {
			t.Errorf("node %d is %d bytes of JSON, want about 9 KB", i, len(data))
		}
	}
}

// The configurations must change what their names say.
func TestConfigurationsChangeWhatTheySay(t *testing.T) {
	const n = 100
	cold, specsCold, err := expectedSpecs(configCold, nil, n)
	if err != nil {
		t.Fatal(err)
	}
	all, specsAll, err := expectedSpecs(configChangeAll, cold, n)
	if err != nil {
		t.Fatal(err)
	}
	_, specs10pct, err := expectedSpecs(configChange10pct, all, n)
	if err != nil {
		t.Fatal(err)
	}
	if got := changedNodes(specsCold, specsAll); got != n {
		t.Errorf("change-all changes %d of %d nodes", got, n)
	}
	if got := changedNodes(specsAll, specs10pct); got != n/10 {
		t.Errorf("change-10pct changes %d of %d nodes, want %d", got, n, n/10)
	}
}
