package sloconfig

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
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

// The annotation vouches for the spec only at the generation it names.
func TestStoredSpecDigest(t *testing.T) {
	at := func(generation int64, value string) *metav1.ObjectMeta {
		m := &metav1.ObjectMeta{Generation: generation}
		if value != "" {
			m.Annotations = map[string]string{SpecDigestAnnotation: value}
		}
		return m
	}
	for name, tt := range map[string]struct {
		meta *metav1.ObjectMeta
		want string
	}{
		"the generation written":          {at(3, FormatSpecDigest(3, "d1")), "d1"},
		"a spec change since (hand edit)": {at(4, FormatSpecDigest(3, "d1")), ""},
		"no annotation":                   {at(3, ""), ""},
		"malformed":                       {at(3, "d1"), ""},
		"no digest":                       {at(3, "3/"), ""},
	} {
		t.Run(name, func(t *testing.T) {
			if got := StoredSpecDigest(tt.meta); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
