// Package rulecases is the one table of validation rules that two judges
// must agree on: the engine (internal/sloconfig, which reads the ConfigMap)
// and the apiserver (the NodeSLO CRD generated from the markers in
// api/slo/v1alpha1). The engine's unit test and the envtest agreement test in
// test/crd run every value of this table, so that a bound changed on one
// side alone fails a test instead of producing NodeSLOs the apiserver
// rejects on every write.
//
// The package holds data only; it imports no test framework and nothing
// from sloconfig, so that sloconfig's own tests can import it.
package rulecases

import (
	"fmt"
	"slices"
	"strings"
)

// Section is a part of the NodeSLO spec together with the ConfigMap key that fills it.
type Section struct {
	// Key is the ConfigMap key, e.g. "resource-threshold-config".
	Key string
	// SpecField is the JSON name of the section in the NodeSLO spec.
	SpecField string
}

// The five sections, one per ConfigMap key (docs/behaviour.md, "ConfigMap format").
var (
	ResourceThreshold = Section{Key: "resource-threshold-config", SpecField: "resourceUsedThresholdWithBE"}
	ResourceQOS       = Section{Key: "resource-qos-config", SpecField: "resourceQOSStrategy"}
	CPUBurst          = Section{Key: "cpu-burst-config", SpecField: "cpuBurstStrategy"}
	System            = Section{Key: "system-config", SpecField: "systemStrategy"}
	// HostApplication is a list: a snippet of it is one application, the
	// first (and only) of the list.
	HostApplication = Section{Key: "host-application-config", SpecField: "hostApplications"}
)

// Sections lists the sections in the order of the ConfigMap keys.
var Sections = []Section{ResourceThreshold, ResourceQOS, CPUBurst, System, HostApplication}

// IsList reports whether a snippet of the section is one element of a list.
func (s Section) IsList() bool { return s == HostApplication }

// EngineRoot is the engine's path of a snippet in the key's document.
func (s Section) EngineRoot() string {
	if s.IsList() {
		return "applications[0]"
	}
	return "clusterStrategy"
}

// SpecRoot is the apiserver's path of a snippet in a NodeSLO.
func (s Section) SpecRoot() string {
	if s.IsList() {
		return "spec." + s.SpecField + "[0]"
	}
	return "spec." + s.SpecField
}

// SpecPathOf maps a path of the engine's errors (e.g.
// clusterStrategy.lsClass.cpuQOS.groupIdentity) to the path the apiserver
// gives the same field (spec.resourceQOSStrategy.lsClass.cpuQOS.groupIdentity).
// ok is false for a path outside the snippet, such as an error about the
// document as a whole.
func (s Section) SpecPathOf(enginePath string) (specPath string, ok bool) {
	root := s.EngineRoot()
	if enginePath == root {
		return s.SpecRoot(), true
	}
	rest, ok := strings.CutPrefix(enginePath, root+".")
	if !ok {
		return "", false
	}
	return s.SpecRoot() + "." + rest, true
}

// Rule locates one validated field.
type Rule struct {
	Section Section
	// Snippet is a JSON object with %s standing for the value (a JSON
	// literal): a clusterStrategy, or for HostApplication one application.
	// Besides the field judged it may set others that a cross-field rule
	// compares it with.
	Snippet string
	// Path is the judged field below the snippet's object, e.g.
	// "beClass.memoryQOS.wmarkRatio" or "beClass.blkioQOS.blocks[0].type".
	Path string
}

// Strategy is the snippet with value filled in.
func (r Rule) Strategy(value string) string { return fmt.Sprintf(r.Snippet, value) }

// Document is the ConfigMap value of the rule's key that holds the snippet
// with value: as clusterStrategy, or as the only top-level application.
func (r Rule) Document(value string) string {
	if r.Section.IsList() {
		return `{"applications": [` + r.Strategy(value) + `]}`
	}
	return `{"clusterStrategy": ` + r.Strategy(value) + `}`
}

// EnginePath is where the engine reports the field, e.g.
// clusterStrategy.cpuSuppressThresholdPercent.
func (r Rule) EnginePath() string { return r.Section.EngineRoot() + "." + r.Path }

// SpecPath is where the apiserver reports the field, e.g.
// spec.resourceUsedThresholdWithBE.cpuSuppressThresholdPercent.
func (r Rule) SpecPath() string { return r.Section.SpecRoot() + "." + r.Path }

// Case is a value both judges accept and one both reject, at Path.
type Case struct {
	Rule
	// OK and Bad are JSON literals, e.g. 100 and 101, or "cpuset" and "quota".
	OK, Bad string
}

// Difference is a rule of the engine that the CRD lacks or states more
// loosely, on purpose: OK is accepted by both judges, Bad by the apiserver
// only. Only this direction is allowed: an engine that accepted what the
// apiserver rejects would produce NodeSLOs whose every write fails.
type Difference struct {
	Case
	// Reason says why the engine is stricter than the CRD.
	Reason string
}

// EngineCases is every case the engine must judge: the agreed ones and
// those of the differences.
func EngineCases() []Case {
	out := slices.Clone(Cases)
	for _, d := range EngineStricter {
		out = append(out, d.Case)
	}
	return out
}
