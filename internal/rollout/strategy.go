package rollout

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// strategyPath is where the strategy lives, the prefix of its messages.
var strategyPath = field.NewPath("spec", "strategy")

// LoadStrategy compiles the NodeSLORollout's spec.strategy (docs/rollout.md#the-strategy)
// with its spec.paused; spec nil, or no strategy, is no rollout: every
// change reaches every node at once. The apiserver checked the schema's
// rules; this checks what it cannot (selectors, query templates, the
// size), and, with limits (nil: not known, as for kubectl
// nodeslo), the hosts and credentials the manager allows.
func LoadStrategy(spec *nodeslov1alpha1.NodeSLORolloutSpec, limits *Limits) Key {
	if spec == nil || spec.Strategy == nil {
		return Key{}
	}
	raw := StrategyJSON(spec.Strategy)
	if err := keyTooLarge(raw); err != nil { // the schema does not bound selectors
		return Key{Present: true, Errors: field.ErrorList{err}, Raw: raw}
	}
	found := sloconfig.NewFindings()
	policy := compileStrategy(spec.Strategy, limits, found)
	policy.Paused = spec.Paused
	key := keyOf(policy, found)
	key.Raw = raw
	return key
}

// StrategyJSON is the strategy as the history keeps it with each revision
// and as its fingerprint is taken: its JSON, fields in the API's order.
func StrategyJSON(s *nodeslov1alpha1.RolloutStrategy) string {
	b, err := json.Marshal(s)
	if err != nil { // a struct of plain fields always encodes
		panic(fmt.Sprintf("encoding a RolloutStrategy: %v", err))
	}
	return string(b)
}

// RetiredKeyLines is what a ConfigMap that still holds the retired rollout
// key (sloconfig.KeyRollout) hears: the key is refused, and where its
// policy went.
func RetiredKeyLines(data map[string]string) sloconfig.KeyLines {
	if _, ok := data[string(sloconfig.KeyRollout)]; !ok {
		return sloconfig.KeyLines{Key: sloconfig.KeyRollout}
	}
	return sloconfig.KeyLines{Key: sloconfig.KeyRollout,
		Errors: []string{fmt.Sprintf("%s: the staged rollout's policy is the NodeSLORollout's spec.strategy; "+
			"kubectl nodeslo rollout convert -f prints the NodeSLORollout that holds this key's policy "+
			"(docs/rollout.md#the-strategy)", sloconfig.KeyRollout)},
		Consequence: "the key is ignored"}
}
