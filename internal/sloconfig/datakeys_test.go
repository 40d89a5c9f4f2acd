package sloconfig

import (
	"slices"
	"strings"
	"testing"
)

// otherKoordinatorKeys are the keys other Koordinator components read from
// the shared slo-controller-config.
var otherKoordinatorKeys = strings.Fields(`colocation-config cpu-normalization-config
	resource-amplification-config calculate-policy-config batch-resource-config extension-config
	node-resource-amplification-config cpu-evict-config memory-evict-config`)

func TestDataKeyWarnings(t *testing.T) {
	others := map[string]string{"unrelated": "x"}
	for _, k := range otherKoordinatorKeys {
		others[k] = "{}"
	}
	tests := []struct {
		name       string
		data       map[string]string
		binaryData map[string][]byte
		want       []string
	}{{
		name: "known keys only",
		data: map[string]string{"resource-threshold-config": "{}", "system-config": "{}"},
	}, {
		name: "other components' keys of a Koordinator ConfigMap",
		data: others,
	}, {
		name: "typos, a case slip and underscores",
		data: map[string]string{
			"resource-threshold-confg": "{}", "CPU-Burst-Config": "{}", "system_config": "{}", "resource-qos-config": "{}",
			"nodeslo-rollout-confg": "{}", "nodeslo-rollout-config": "{}",
		},
		want: []string{
			`data key "CPU-Burst-Config" is ignored: did you mean "cpu-burst-config"?`,
			`data key "nodeslo-rollout-confg" is ignored: did you mean "nodeslo-rollout-config"?`,
			`data key "resource-threshold-confg" is ignored: did you mean "resource-threshold-config"?`,
			`data key "system_config" is ignored: did you mean "system-config"?`,
		},
	}, {
		name:       "configuration under binaryData",
		binaryData: map[string][]byte{"host-application-config": []byte("{}"), "cpu-burst-confi": nil, "logo.png": nil},
		want: []string{
			`binaryData key "cpu-burst-confi" is ignored: did you mean "cpu-burst-config", under data?`,
			`binaryData key "host-application-config" is ignored: ` +
				`the configuration is read from data only; move it there as a string`,
		},
	}, {
		name: "a huge key is not compared at length",
		data: map[string]string{strings.Repeat("x", 20<<20): ""},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DataKeyWarnings(tt.data, tt.binaryData)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// Every other key Koordinator reads from slo-controller-config must stay
// farther from ours than the typo distance, or a valid shared ConfigMap
// would warn.
func TestKnownKoordinatorKeysAreNotTypos(t *testing.T) {
	for _, other := range otherKoordinatorKeys {
		if near := nearKey(other); near != "" {
			t.Errorf("%s taken for a typo of %s", other, near)
		}
	}
}
