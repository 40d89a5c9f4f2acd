package sloconfig

import (
	"testing"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// Equal specs have one digest, whatever memory they are in; any change of
// a value changes it; nil and empty are one spec.
func TestSpecDigest(t *testing.T) {
	cfg := Load(nil, nil)
	a := cfg.Resolve(Node{Name: "a"}, nil).Spec
	b := *a.DeepCopy()
	if SpecDigest(&a) != SpecDigest(&b) || len(SpecDigest(&a)) != 32 {
		t.Fatalf("equal specs: %q, %q", SpecDigest(&a), SpecDigest(&b))
	}
	*b.ResourceUsedThresholdWithBE.CPUSuppressThresholdPercent++
	if SpecDigest(&a) == SpecDigest(&b) {
		t.Error("a changed value kept the digest")
	}
	if SpecDigest(nil) != SpecDigest(&slov1alpha1.NodeSLOSpec{}) {
		t.Error("nil and empty specs differ")
	}
}

// memoized counts the digests cfg remembers.
func memoized(cfg *Config) int {
	n := 0
	cfg.digests.Range(func(any, any) bool { n++; return true })
	return n
}

// The Config's digest is the spec's, remembered once per combination of
// its own sections; a spec with a section of one node's (its bandwidth
// annotation, or a Frozen key's stored value) is digested, not remembered.
func TestConfigSpecDigestRemembersOnlyTheConfigsSections(t *testing.T) {
	cfg := Load(map[string]string{
		string(KeySystem): `{"clusterStrategy": {"totalNetworkBandwidth": "10G"},
		  "nodeStrategies": [{"name": "gpu", "nodeSelector": {"matchLabels": {"class": "gpu"}}, "minFreeKbytesFactor": 20}]}`,
		string(KeyHostApplication): `{"applications": [{"name": "sshd"}]}`,
	}, nil)
	gpu := map[string]string{"class": "gpu"}
	nodes := []Node{
		{Name: "a"}, {Name: "b"}, {Name: "gpu-1", Labels: gpu}, {Name: "gpu-2", Labels: gpu},
		{Name: "fast", Annotations: map[string]string{NetworkBandwidthAnnotation: "30G"}},
		{Name: "faster", Annotations: map[string]string{NetworkBandwidthAnnotation: "100G"}},
	}
	for range 2 {
		for _, n := range nodes {
			res := cfg.Resolve(n, nil)
			copied := *res.Spec.DeepCopy()
			if got, want := cfg.SpecDigest(&res), SpecDigest(&copied); got != want {
				t.Fatalf("%s: digest %q, want the spec's %q", n.Name, got, want)
			}
		}
	}
	if got := memoized(cfg); got != 2 {
		t.Errorf("%d digests remembered, want 2 (the cluster strategy and \"gpu\"; none for the annotated nodes)", got)
	}

	frozen := Load(map[string]string{string(KeyCPUBurst): `{`}, nil)
	stored := cfg.Resolve(Node{Name: "a"}, nil).Spec
	res := frozen.Resolve(Node{Name: "a"}, &stored)
	if got, want := frozen.SpecDigest(&res), SpecDigest(&res.Spec); got != want {
		t.Errorf("frozen: digest %q, want the spec's %q", got, want)
	}
	if got := memoized(frozen); got != 0 {
		t.Errorf("a configuration with a Frozen key remembered %d digests, want 0", got)
	}
}

// Under a CRD that drops fields, the stored form is the spec without them
// and its digest, remembered once per combination of the Config's sections
// and set of dropped paths; a node's own section is not remembered.
func TestStoredFormOfRemembersOnlyTheConfigsSections(t *testing.T) {
	cfg := Load(map[string]string{
		string(KeyResourceQOS): `{"clusterStrategy": {"lsClass": {"memoryQOS":
		  {"enable": true, "pageCacheLimitPercent": 50}}}}`,
		string(KeySystem): `{"clusterStrategy": {"totalNetworkBandwidth": "10G"}}`,
	}, nil)
	dropped := []string{"resourceQOSStrategy.lsClass.memoryQOS.pageCacheLimitPercent"}
	annotated := Node{Name: "own-bandwidth", Annotations: map[string]string{NetworkBandwidthAnnotation: "30G"}}
	nodes := []Node{{Name: "a"}, {Name: "b"}, annotated}
	for range 2 {
		for _, n := range nodes {
			res := cfg.Resolve(n, nil)
			got := cfg.StoredFormOf(&res, dropped)
			want := WithoutPaths(&res.Spec, dropped)
			if !SpecEqual(got.Spec, &want) || got.Digest != SpecDigest(&want) {
				t.Fatalf("%s: stored form %+v, want the spec without %v", n.Name, got, dropped)
			}
			if len(DroppedPaths(&res.Spec, got.Spec)) != 1 {
				t.Fatalf("%s: the stored form still holds a dropped field", n.Name)
			}
		}
	}
	forms := 0
	cfg.forms.Range(func(any, any) bool { forms++; return true })
	if forms != 1 {
		t.Errorf("%d stored forms remembered, want 1 (the cluster strategy's; none for the annotated node)", forms)
	}
}
