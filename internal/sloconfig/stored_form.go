package sloconfig

import (
	"strings"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// StoredForm is what the apiserver keeps when a resolved spec is written
// under a CRD that drops some of its fields (docs/behaviour.md#crd-version-skew):
// the spec without them, and that spec's digest, which the write's
// storedslo.SpecDigestAnnotation names. It is the one answer to "does this NodeSLO
// hold what it should?", for the NodeSLO reconciler and for a rollout
// decision alike (HeldBy).
type StoredForm struct {
	// Spec is shared with the Config or the Resolution: never write into it.
	Spec   *slov1alpha1.NodeSLOSpec
	Digest string
}

// StoredFormOf returns what the apiserver stores of res when the installed
// CRD drops the paths dropped (nil: none). Like SpecDigest, it is computed
// once per combination of the Config's sections and set of dropped paths:
// under a CRD that drops fields every reconcile asks for it.
func (c *Config) StoredFormOf(res *Resolution, dropped []string) StoredForm {
	if len(dropped) == 0 {
		return StoredForm{Spec: &res.Spec, Digest: c.SpecDigest(res)}
	}
	if !res.ownSections {
		return formWithout(&res.Spec, dropped)
	}
	key := formKey{sectionsKey(&res.Spec), strings.Join(dropped, "\x00")}
	if f, ok := c.forms.Load(key); ok {
		return f.(StoredForm)
	}
	f := formWithout(&res.Spec, dropped)
	c.forms.Store(key, f)
	return f
}

// formKey identifies a stored form: the sections of the spec and the
// paths dropped from it.
type formKey struct {
	sections sectionsOf
	dropped  string
}

// formWithout is the stored form of spec without the paths dropped.
func formWithout(spec *slov1alpha1.NodeSLOSpec, dropped []string) StoredForm {
	without := WithoutPaths(spec, dropped)
	return StoredForm{Spec: &without, Digest: SpecDigest(&without)}
}

// HeldBy reports whether a stored NodeSLO already holds f. digest is the
// digest its storedslo.SpecDigestAnnotation vouches for (storedslo.VouchedDigest; "" when it
// vouches for nothing) and decides when there is one; otherwise spec, the
// stored spec read whole (nil: not read), is compared with f's.
func (f StoredForm) HeldBy(digest string, spec *slov1alpha1.NodeSLOSpec) bool {
	if digest != "" {
		return digest == f.Digest
	}
	return spec != nil && SpecEqual(spec, f.Spec)
}
