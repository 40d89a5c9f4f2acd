package sloconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// SpecDigest is a digest of spec: equal for equal specs as this package
// resolves them (encoding/json writes struct fields in a fixed order, map
// keys sorted and quantities canonically). 128 bits of SHA-256 in hex.
func SpecDigest(spec *slov1alpha1.NodeSLOSpec) string {
	if spec == nil {
		spec = &slov1alpha1.NodeSLOSpec{}
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return "" // a spec of known types always encodes
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// sectionsOf identifies a resolved spec by the sections it is built of:
// Resolve shares them with the Config, so equal keys mean equal specs.
type sectionsOf struct {
	threshold *slov1alpha1.ResourceThresholdStrategy
	qos       *slov1alpha1.ResourceQOSStrategy
	burst     *slov1alpha1.CPUBurstStrategy
	system    *slov1alpha1.SystemStrategy
	hostApps  *slov1alpha1.HostApplicationSpec
	hostAppsN int
}

// SpecDigest is SpecDigest of r.Spec, computed once per combination of
// this Config's sections: thousands of nodes resolve to a handful of
// them, and the digest is asked for on every reconcile and for every node
// of a rollout decision. A spec holding a section of its own (read from
// the stored spec, or changed by the node's bandwidth annotation) is
// digested each time, so that the Config keeps nothing of one node.
func (c *Config) SpecDigest(r *Resolution) string {
	if !r.ownSections {
		return SpecDigest(&r.Spec)
	}
	s := &r.Spec
	key := sectionsKey(s)
	if d, ok := c.digests.Load(key); ok {
		return d.(string)
	}
	d := SpecDigest(s)
	c.digests.Store(key, d)
	return d
}

// sectionsKey is the key of a spec built of the Config's own sections.
func sectionsKey(s *slov1alpha1.NodeSLOSpec) sectionsOf {
	key := sectionsOf{s.ResourceUsedThresholdWithBE, s.ResourceQOSStrategy, s.CPUBurstStrategy, s.SystemStrategy,
		nil, len(s.HostApplications)}
	if key.hostAppsN > 0 {
		key.hostApps = &s.HostApplications[0]
	}
	return key
}

// NodeSLOMetadata is an empty NodeSLO read as metadata only.
func NodeSLOMetadata() *metav1.PartialObjectMetadata {
	return metadataOf(slov1alpha1.GroupVersion.WithKind("NodeSLO"))
}

// NodeSLOMetadataList is an empty list of NodeSLOs read as metadata only.
func NodeSLOMetadataList() *metav1.PartialObjectMetadataList {
	return metadataListOf(slov1alpha1.GroupVersion.WithKind("NodeSLOList"))
}
