package sloconfig

import (
	"io"

	"k8s.io/apimachinery/pkg/util/sets"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// sectionKey ties one ConfigMap key to everything the engine does with it:
// how its value is compiled, where the compiled section lives in a Config,
// and which part of a NodeSLO spec it fills. Loading, resolving and
// fingerprinting all walk keyTable, so they cannot disagree on which
// report belongs to which section.
type sectionKey[V any] struct {
	key     Key
	compile func(raw string) compiled[V]
	// defaults is the section of a key absent from the ConfigMap.
	defaults func() section[V]
	// in is the key's compiled section inside a Config.
	in func(*Config) *section[V]
	// stored reads the key's part of a stored spec; ok is false when the
	// spec has no value for it (only a Frozen key reads it).
	stored func(*slov1alpha1.NodeSLOSpec) (value V, ok bool)
	// set writes the key's part of a spec.
	set func(*slov1alpha1.NodeSLOSpec, V)
}

// keyHandler is a sectionKey with its value type hidden, so that keys of
// different types sit in one table.
type keyHandler interface {
	name() Key
	load(c *Config, data map[string]string, previous *Config) SectionReport
	resolve(c *Config, report SectionReport, node Node, current *slov1alpha1.NodeSLOSpec, r *Resolution)
	writeFingerprint(c *Config, w io.Writer)
	// addLabelKeys adds the label keys the key's selectors read to keys.
	addLabelKeys(c *Config, keys sets.Set[string])
	// entries lists the key's node entries in force, in order (reach.go).
	entries(c *Config) []entryRef
	// variants returns one spec per strategy of the key (crd_skew.go).
	variants(c *Config) []slov1alpha1.NodeSLOSpec
}

// keyTable lists the keys this engine reads, in the order of reports and matches.
var keyTable = []keyHandler{
	sectionKey[*thresholdStrategy]{
		key: KeyResourceThreshold, compile: thresholdKind.compile, defaults: thresholdKind.defaultSection,
		in:     func(c *Config) *section[*thresholdStrategy] { return &c.threshold },
		stored: func(s *slov1alpha1.NodeSLOSpec) (*thresholdStrategy, bool) { return has(s.ResourceUsedThresholdWithBE) },
		set:    func(s *slov1alpha1.NodeSLOSpec, v *thresholdStrategy) { s.ResourceUsedThresholdWithBE = v },
	},
	sectionKey[*qosStrategy]{
		key: KeyResourceQOS, compile: qosKind.compile, defaults: qosKind.defaultSection,
		in:     func(c *Config) *section[*qosStrategy] { return &c.qos },
		stored: func(s *slov1alpha1.NodeSLOSpec) (*qosStrategy, bool) { return has(s.ResourceQOSStrategy) },
		set:    func(s *slov1alpha1.NodeSLOSpec, v *qosStrategy) { s.ResourceQOSStrategy = v },
	},
	sectionKey[*burstStrategy]{
		key: KeyCPUBurst, compile: burstKind.compile, defaults: burstKind.defaultSection,
		in:     func(c *Config) *section[*burstStrategy] { return &c.burst },
		stored: func(s *slov1alpha1.NodeSLOSpec) (*burstStrategy, bool) { return has(s.CPUBurstStrategy) },
		set:    func(s *slov1alpha1.NodeSLOSpec, v *burstStrategy) { s.CPUBurstStrategy = v },
	},
	sectionKey[*systemStrategy]{
		key: KeySystem, compile: systemKind.compile, defaults: systemKind.defaultSection,
		in:     func(c *Config) *section[*systemStrategy] { return &c.system },
		stored: func(s *slov1alpha1.NodeSLOSpec) (*systemStrategy, bool) { return has(s.SystemStrategy) },
		set:    func(s *slov1alpha1.NodeSLOSpec, v *systemStrategy) { s.SystemStrategy = v },
	},
	sectionKey[hostAppList]{
		key: KeyHostApplication, compile: compileHostApplications,
		defaults: func() section[hostAppList] { return section[hostAppList]{} },
		in:       func(c *Config) *section[hostAppList] { return &c.hostApps },
		// A stored spec without host applications has the value "none".
		stored: func(s *slov1alpha1.NodeSLOSpec) (hostAppList, bool) { return s.HostApplications, true },
		set:    func(s *slov1alpha1.NodeSLOSpec, v hostAppList) { s.HostApplications = v },
	},
}

// has reports a stored section that is present.
func has[T any](value *T) (*T, bool) { return value, value != nil }

func (k sectionKey[V]) name() Key { return k.key }

// load compiles the key's value in data into c and decides its state.
func (k sectionKey[V]) load(c *Config, data map[string]string, previous *Config) SectionReport {
	report := SectionReport{Key: k.key, State: StateDefault}
	sec := k.defaults()
	if raw, present := data[string(k.key)]; present {
		out := k.compile(raw)
		report.Errors, report.Warnings = out.errs, out.warnings
		switch {
		case len(out.errs) == 0:
			sec, report.State = out.section, StateConfigured
			c.source[k.key] = raw
		case previous != nil && previous.State(k.key) != StateFrozen:
			sec, report.State = *k.in(previous), StateLastGood
			if last, ok := previous.source[k.key]; ok {
				c.source[k.key] = last
			}
		default:
			report.State = StateFrozen
		}
	}
	*k.in(c) = sec
	return report
}

// resolve sets the key's part of r.Spec for node and records how it was chosen.
// A frozen key keeps current's value when current has one.
func (k sectionKey[V]) resolve(
	c *Config, report SectionReport, node Node, current *slov1alpha1.NodeSLOSpec, r *Resolution,
) {
	s := k.in(c)
	if report.State == StateFrozen {
		r.Matches = append(r.Matches, SectionMatch{Key: k.key, Index: -1, State: report.State})
		value := s.fallback
		if current != nil {
			if v, ok := k.stored(current); ok {
				value = v
			}
		}
		k.set(&r.Spec, value)
		return
	}
	ch := s.pick(node.Labels)
	if ch.shadowed > 0 {
		r.Warnings = append(r.Warnings, NodeWarning{
			Reason: ReasonMultipleNodeStrategies, Message: s.multipleMatchesMessage(k.key, ch)})
	}
	r.Matches = append(r.Matches, SectionMatch{Key: k.key, Strategy: ch.name, Index: ch.index, State: report.State})
	k.set(&r.Spec, ch.value)
}

func (k sectionKey[V]) writeFingerprint(c *Config, w io.Writer) { writeSection(w, k.in(c)) }

func (k sectionKey[V]) addLabelKeys(c *Config, keys sets.Set[string]) {
	for _, r := range k.in(c).rules {
		requirements, _ := r.selector.Requirements()
		for _, req := range requirements {
			keys.Insert(req.Key())
		}
	}
}

func (k sectionKey[V]) entries(c *Config) []entryRef {
	rules := k.in(c).rules
	out := make([]entryRef, len(rules))
	for i, r := range rules {
		out[i] = entryRef{name: r.name, selector: r.selector}
	}
	return out
}

// keysOf lists the keys of a table.
func keysOf(table []keyHandler) []Key {
	out := make([]Key, len(table))
	for i, h := range table {
		out[i] = h.name()
	}
	return out
}
