package sloconfig

// THIS FILE IS THE CONTRACT between the engine and its callers (controllers,
// kubectl plugin). Bodies marked "stub" are placeholders to be replaced by the
// real engine; signatures stay.

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
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

// Keys lists the keys in the order reports are given.
var Keys = []Key{KeyResourceThreshold, KeyResourceQOS, KeyCPUBurst, KeySystem, KeyHostApplication}

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
	// relative to the key's document, e.g. nodeStrategies[1].memoryEvictLowerPercent.
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
	reports     []SectionReport
	fingerprint string
}

// Load parses, validates and compiles a ConfigMap's data. data is nil when
// the ConfigMap does not exist (all defaults). previous is the configuration
// in force until now (nil at start-up and after the ConfigMap was deleted); it
// supplies the last good value of a key whose new value is invalid.
func Load(data map[string]string, previous *Config) *Config {
	// stub
	c := &Config{}
	for _, k := range Keys {
		c.reports = append(c.reports, SectionReport{Key: k, State: StateDefault})
	}
	return c
}

// Reports returns one report per key, in Keys order.
func (c *Config) Reports() []SectionReport { return c.reports }

// Fingerprint identifies the effective configuration: two configurations with
// the same fingerprint resolve every node to the same spec. The config-cache
// controller re-reconciles all nodes only when it changes.
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
	// Spec shares read-only memory with the Config: DeepCopy it before giving
	// it to anything that may write into it (an API client decoding a response).
	Spec     slov1alpha1.NodeSLOSpec
	Matches  []SectionMatch // one per key, in Keys order
	Warnings []NodeWarning
}

// Resolve computes the spec for node. current is the spec of the node's
// NodeSLO as stored now (nil when there is none); only sections in state
// Frozen read it.
func (c *Config) Resolve(node Node, current *slov1alpha1.NodeSLOSpec) Resolution {
	// stub
	return Resolution{Spec: slov1alpha1.NodeSLOSpec{}}
}

// SpecEqual reports whether two specs mean the same thing: quantities are
// compared by value and nil equals empty for maps and lists.
func SpecEqual(a, b *slov1alpha1.NodeSLOSpec) bool {
	// stub
	return false
}
