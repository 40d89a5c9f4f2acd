package sloconfig

// THIS FILE IS THE CONTRACT between the engine and its callers (controllers,
// kubectl plugin): the exported types and entry points. The engine behind
// them lives in the other files of this package, one concept per file.

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// Key is a ConfigMap key this controller reads; other keys are ignored.
type Key string

const (
	KeyResourceThreshold Key = "resource-threshold-config"
	KeyResourceQOS       Key = "resource-qos-config"
	KeyCPUBurst          Key = "cpu-burst-config"
	KeySystem            Key = "system-config"
	KeyHostApplication   Key = "host-application-config"
)

// Keys lists the keys in the order reports are given (keyTable's order).
var Keys = keysOf(keyTable)

// KeyRollout is the retired rollout key, which held the staged-rollout
// policy before the NodeSLORollout's spec.strategy did
// (docs/rollout.md#the-strategy): a ConfigMap that still holds it gets an
// error (rollout.RetiredKeyLines). It is not a section of the NodeSLO
// spec: it decided when a change reaches each node, never what a node
// gets, so it is not in Keys and not in the fingerprint.
const KeyRollout Key = "nodeslo-rollout-config"

// NetworkBandwidthAnnotation on a Node overrides systemStrategy.totalNetworkBandwidth.
const NetworkBandwidthAnnotation = "node.koordinator.sh/network-bandwidth"

// SectionState says where the value in force for a key comes from.
type SectionState string

const (
	// StateConfigured: the key is present and valid.
	StateConfigured SectionState = "Configured"
	// StateDefault: the key is absent; built-in defaults apply.
	StateDefault SectionState = "Default"
	// StateLastGood: the key is invalid; the last good value stays in force.
	StateLastGood SectionState = "LastGood"
	// StateFrozen: the key is invalid and no good value is known (e.g. after a
	// restart): existing NodeSLOs keep their current value of this section,
	// new nodes get the default.
	StateFrozen SectionState = "Frozen"
)

// SectionReport is what loading found about one key.
type SectionReport struct {
	Key   Key
	State SectionState
	// Errors is non-empty exactly when the key's value is invalid. Paths are
	// relative to the key's document, e.g. nodeStrategies[1].memoryEvictLowerPercent;
	// an error about the document as a whole (malformed JSON) has an empty
	// Field. Messages renders both kinds as lines for events and logs.
	Errors field.ErrorList
	// Warnings are accepted oddities: unknown fields (naming the closest known
	// one), empty selectors, and so on. Each is a full sentence with its path.
	Warnings []string
}

// Valid reports whether the key's value was accepted.
func (r SectionReport) Valid() bool { return len(r.Errors) == 0 }

// Config is an immutable configuration, merged and compiled once at load.
// Many goroutines may read it at once without locks or copies.
type Config struct {
	reports     []SectionReport // one per key, in keyTable order
	fingerprint string
	// source is the ConfigMap value each key's section in force was
	// compiled from (absent: the defaults); see DataInForce.
	source map[Key]string

	threshold section[*slov1alpha1.ResourceThresholdStrategy]
	qos       section[*slov1alpha1.ResourceQOSStrategy]
	burst     section[*slov1alpha1.CPUBurstStrategy]
	system    section[*slov1alpha1.SystemStrategy]
	hostApps  section[hostAppList]

	// digests remembers the digest of each combination of this Config's
	// sections that resolving has produced (see Config.SpecDigest).
	digests sync.Map // sectionsOf -> string
	// forms remembers, the same way, the stored form of each combination
	// under a CRD that drops fields (StoredFormOf).
	forms sync.Map // formKey -> StoredForm
}

// Load parses, validates and compiles a ConfigMap's data. data is nil when
// the ConfigMap does not exist (all defaults). previous is the configuration
// in force until now (nil at start-up and after the ConfigMap was deleted); it
// supplies the last good value of a key whose new value is invalid.
func Load(data map[string]string, previous *Config) *Config {
	return load(data, previous)
}

// DataInForce returns the ConfigMap data that loads into this
// configuration: for each key, the value in force as it was written (the
// new value when valid, the last good one when not; a key in force as its
// defaults is absent). ok is false when a key is Frozen: no data yields
// the configuration then, as each node keeps its own value of that key.
// The revision history keeps this data, so that an undo writes back
// exactly what was in force (docs/rollout.md#revision-history-and-undo).
func (c *Config) DataInForce() (data map[string]string, ok bool) {
	if c.ReadsStoredSpec() {
		return nil, false
	}
	data = make(map[string]string, len(c.source))
	for k, v := range c.source {
		data[string(k)] = v
	}
	return data, true
}

// ReadsStoredSpec reports whether resolving reads the node's stored spec:
// a key is Frozen, and keeps each node's own value. A decision then needs
// the stored spec itself, not only its digest (storedslo.SpecDigestAnnotation).
func (c *Config) ReadsStoredSpec() bool {
	for _, r := range c.reports {
		if r.State == StateFrozen {
			return true
		}
	}
	return false
}

// Reports returns one report per key, in Keys order.
func (c *Config) Reports() []SectionReport { return c.reports }

// Fingerprint identifies the effective configuration: two configurations with
// the same fingerprint resolve every node to the same spec. The rollout
// controller has every node reconciled only when it changes.
func (c *Config) Fingerprint() string { return c.fingerprint }

// Node is what resolving needs to know of a Node.
type Node struct {
	Name        string
	Labels      map[string]string
	Annotations map[string]string
}

// SectionMatch says which strategy of a key applied to a node.
type SectionMatch struct {
	Key Key
	// Strategy is the name of the matching node strategy (or host-application
	// node config); empty when the cluster strategy applied.
	Strategy string
	// Index is that entry's position in its list, -1 for the cluster strategy.
	Index int
	State SectionState
}

// NodeWarning is something about the node the operator should hear of, with
// a reason suitable for a Kubernetes Event.
type NodeWarning struct {
	Reason  string // e.g. "InvalidNetworkBandwidth", "MultipleNodeStrategies"
	Message string
}

// Resolution is the spec for one node and how it was chosen.
type Resolution struct {
	// Spec shares read-only memory with the Config (and, for a Frozen
	// section, with current): DeepCopy it before giving it to anything that
	// may write into it (an API client decoding a response).
	Spec     slov1alpha1.NodeSLOSpec
	Matches  []SectionMatch // one per key, in Keys order
	Warnings []NodeWarning
	// ownSections says that every section of Spec is the Config's own
	// (none was read from current, none copied for an annotation), so
	// that the Config may remember Spec's digest by its sections.
	ownSections bool
}

// Resolve computes the spec for node. current is the spec of the node's
// NodeSLO as stored now (nil when there is none); only sections in state
// Frozen read it. The bandwidth annotation applies on top of whatever
// systemStrategy is chosen, a frozen one included. Resolve parses nothing
// and allocates little: it is meant to run on every reconcile.
func (c *Config) Resolve(node Node, current *slov1alpha1.NodeSLOSpec) Resolution {
	return c.resolve(node, current)
}

// SelectorLabelKeys lists, sorted, the label keys any node strategy's
// selector reads. Resolve depends on a node's labels only through these
// keys (and on its annotations only through NetworkBandwidthAnnotation), so
// nodes alike in them resolve alike: callers resolving many nodes may
// resolve each such group once.
func (c *Config) SelectorLabelKeys() []string {
	keys := sets.New[string]()
	for _, k := range keyTable {
		k.addLabelKeys(c, keys)
	}
	return sets.List(keys)
}

// SpecEqual reports whether two specs mean the same thing: quantities are
// compared by value and nil equals empty for maps and lists. A nil spec
// equals an empty one; a missing section does not equal an empty one.
func SpecEqual(a, b *slov1alpha1.NodeSLOSpec) bool {
	return specEqual(a, b)
}

// State returns the state of key, or "" for a key this package does not read.
func (c *Config) State(key Key) SectionState {
	for _, r := range c.reports {
		if r.Key == key {
			return r.State
		}
	}
	return ""
}

// Valid reports whether every key's value was accepted.
func (c *Config) Valid() bool {
	for _, r := range c.reports {
		if !r.Valid() {
			return false
		}
	}
	return true
}

// Messages renders the report as lines a person can act on, one per error,
// each prefixed with the key: "resource-threshold-config:
// nodeStrategies[1].memoryEvictLowerPercent: Invalid value: 90: must be
// less than memoryEvictThresholdPercent (80)".
func (r SectionReport) Messages() []string {
	out := make([]string, 0, len(r.Errors))
	for _, e := range r.Errors {
		if e.Field == "" {
			out = append(out, fmt.Sprintf("%s: %s", r.Key, e.ErrorBody()))
		} else {
			out = append(out, fmt.Sprintf("%s: %s: %s", r.Key, e.Field, e.ErrorBody()))
		}
	}
	return out
}

// WarningMessages renders the warnings, each prefixed with the key.
func (r SectionReport) WarningMessages() []string {
	out := make([]string, len(r.Warnings))
	for i, w := range r.Warnings {
		out[i] = fmt.Sprintf("%s: %s", r.Key, w)
	}
	return out
}

// NodeWarning reasons.
const (
	ReasonInvalidNetworkBandwidth = "InvalidNetworkBandwidth"
	ReasonMultipleNodeStrategies  = "MultipleNodeStrategies"
)
