package sloconfig

import (
	"slices"
	"testing"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig/sloconfigtest"
)

// FuzzLoadResolve feeds arbitrary text to every key and resolves a node:
// parsing, checking, merging, validating and resolving must never panic,
// and a key must be valid exactly when it reports no errors.
func FuzzLoadResolve(f *testing.F) {
	for _, doc := range append(slices.Clone(sloconfigtest.FuzzSeeds),
		realisticData[string(KeyResourceQOS)], realisticData[string(KeyHostApplication)]) {
		f.Add(doc, "pool=a", "10G")
	}
	previous := Load(realisticData, nil)
	f.Fuzz(func(t *testing.T, doc, label, bandwidth string) {
		data := map[string]string{}
		for _, k := range Keys {
			data[string(k)] = doc
		}
		node := Node{
			Name:        "n",
			Labels:      map[string]string{poolLabel: label},
			Annotations: map[string]string{NetworkBandwidthAnnotation: bandwidth},
		}
		for _, prev := range []*Config{nil, previous} {
			c := Load(data, prev)
			for _, r := range c.Reports() {
				invalid := r.State == StateLastGood || r.State == StateFrozen
				if invalid == r.Valid() {
					t.Fatalf("%s: state %s with errors %v", r.Key, r.State, r.Errors)
				}
				_ = r.Messages()
			}
			res := c.Resolve(node, &slov1alpha1.NodeSLOSpec{})
			if len(res.Matches) != len(Keys) || res.Spec.Extensions == nil || res.Spec.SystemStrategy == nil {
				t.Fatalf("incomplete resolution %+v", res)
			}
			_ = c.Fingerprint()
		}
	})
}
