package sloconfig

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/sets"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// Each key's value must land in its own section of the spec, be reported
// under its own name, and count in the fingerprint: a key wired to another
// key's section in keyTable fails here.
func TestEachKeyDrivesItsOwnSection(t *testing.T) {
	// A value per key that differs from the default, and the spec field it fills.
	cases := map[Key]struct{ value, specField string }{
		KeyResourceThreshold: {`{"clusterStrategy": {"enable": true}}`, thresholdSection},
		KeyResourceQOS:       {`{"clusterStrategy": {"policies": {"cpuPolicy": "coreSched"}}}`, qosSection},
		KeyCPUBurst:          {`{"clusterStrategy": {"policy": "auto"}}`, burstSection},
		KeySystem:            {`{"clusterStrategy": {"totalNetworkBandwidth": "1G"}}`, systemSection},
		KeyHostApplication:   {`{"applications": [{"name": "nginx"}]}`, hostAppsSection},
	}
	if got, want := slices.Sorted(maps.Keys(cases)), slices.Sorted(slices.Values(Keys)); !slices.Equal(got, want) {
		t.Fatalf("the test covers keys %v, the engine reads %v", got, want)
	}
	defaults := Load(nil, nil)
	defaultSpec := specFields(t, defaults.Resolve(Node{Name: "n"}, nil).Spec)

	for key, tc := range cases {
		cfg := Load(map[string]string{string(key): tc.value}, nil)
		res := cfg.Resolve(Node{Name: "n"}, nil)
		for i, r := range cfg.Reports() {
			if r.Key != Keys[i] || res.Matches[i].Key != Keys[i] {
				t.Errorf("%s: position %d: report %s, match %s, want %s", key, i, r.Key, res.Matches[i].Key, Keys[i])
			}
			wantState := StateDefault
			if r.Key == key {
				wantState = StateConfigured
			}
			if r.State != wantState {
				t.Errorf("%s: report of %s is %s, want %s", key, r.Key, r.State, wantState)
			}
		}
		spec := specFields(t, res.Spec)
		var changed []string
		for name := range sets.KeySet(spec).Union(sets.KeySet(defaultSpec)) {
			if string(spec[name]) != string(defaultSpec[name]) {
				changed = append(changed, name)
			}
		}
		if slices.Sort(changed); !slices.Equal(changed, []string{tc.specField}) {
			t.Errorf("%s changed spec fields %v, want only %s", key, changed, tc.specField)
		}
		if cfg.Fingerprint() == defaults.Fingerprint() {
			t.Errorf("%s: the fingerprint ignores the key", key)
		}
	}
}

// A frozen key takes its section, and only its section, from the stored spec.
func TestAFrozenKeyReadsItsOwnStoredSection(t *testing.T) {
	stored := Load(map[string]string{
		string(KeyResourceThreshold): `{"clusterStrategy": {"enable": true}}`,
		string(KeyResourceQOS):       `{"clusterStrategy": {"policies": {"cpuPolicy": "coreSched"}}}`,
		string(KeyCPUBurst):          `{"clusterStrategy": {"policy": "auto"}}`,
		string(KeySystem):            `{"clusterStrategy": {"totalNetworkBandwidth": "1G"}}`,
		string(KeyHostApplication):   `{"applications": [{"name": "nginx"}]}`,
	}, nil).Resolve(Node{Name: "n"}, nil).Spec
	storedFields := specFields(t, stored)
	defaultFields := specFields(t, Load(nil, nil).Resolve(Node{Name: "n"}, nil).Spec)

	for _, key := range Keys {
		cfg := Load(map[string]string{string(key): `{`}, nil)
		if cfg.State(key) != StateFrozen {
			t.Fatalf("%s: state %s, want Frozen", key, cfg.State(key))
		}
		got := specFields(t, cfg.Resolve(Node{Name: "n"}, &stored).Spec)
		for name := range sets.KeySet(got).Union(sets.KeySet(storedFields)) {
			fromStore := string(got[name]) == string(storedFields[name])
			fromDefault := string(got[name]) == string(defaultFields[name])
			if !fromStore && !fromDefault {
				t.Errorf("%s frozen: %s is %s, neither stored nor default", key, name, got[name])
			}
		}
		var taken []string
		for name := range got {
			if string(got[name]) == string(storedFields[name]) && string(got[name]) != string(defaultFields[name]) {
				taken = append(taken, name)
			}
		}
		if len(taken) != 1 {
			t.Errorf("%s frozen: took %v from the stored spec, want exactly its own section", key, taken)
		}
	}
}

// specFields splits a spec's wire form into its top-level fields.
func specFields(t *testing.T, spec slov1alpha1.NodeSLOSpec) map[string]json.RawMessage {
	t.Helper()
	var out map[string]json.RawMessage
	if err := json.Unmarshal([]byte(specJSON(t, spec)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The retired rollout key never changes what a node gets, so it stays out
// of the spec's reports and fingerprint.
func TestRolloutKeyIsNotASpecSection(t *testing.T) {
	without := Load(map[string]string{}, nil)
	with := Load(map[string]string{string(KeyRollout): `{"paused": true}`}, nil)
	if with.Fingerprint() != without.Fingerprint() || len(with.Reports()) != len(Keys) || with.State(KeyRollout) != "" {
		t.Error("the rollout key takes part in Load")
	}
}
