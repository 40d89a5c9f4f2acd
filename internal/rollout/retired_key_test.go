package rollout

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The tests write a strategy as the JSON of the retired rollout key
// (sloconfig.KeyRollout), with its "paused"; the controller no longer
// reads that key, and kubectl nodeslo rollout convert reads it into the
// API types itself.

// LoadKey compiles a strategy's JSON held in data, without the manager's
// limits.
func LoadKey(data map[string]string) Key { return loadKey(data, nil) }

// LoadKeyWithin is LoadKey checked also against what the manager allows a
// metric check to reach, as LoadStrategy with limits does.
func LoadKeyWithin(data map[string]string, limits Limits) Key { return loadKey(data, &limits) }

// retiredKey is the retired key's JSON: a strategy and its "paused".
type retiredKey struct {
	nodeslov1alpha1.RolloutStrategy
	Paused bool `json:"paused,omitempty"`
}

// loadKey reads the JSON with the parser of the ConfigMap's keys
// (positions, unknown fields with the closest name) into the API types,
// and compiles it as LoadStrategy does; no schema checks it.
func loadKey(data map[string]string, limits *Limits) Key {
	raw, present := data[string(sloconfig.KeyRollout)]
	if !present {
		return Key{}
	}
	if err := keyTooLarge(raw); err != nil {
		return Key{Present: true, Errors: field.ErrorList{err}}
	}
	written, found := sloconfig.DecodeDocument[retiredKey](raw)
	var policy *Policy
	if written != nil {
		policy = compileStrategy(&written.RolloutStrategy, limits, found)
		policy.Paused = written.Paused
	}
	return keyOf(policy, found)
}
