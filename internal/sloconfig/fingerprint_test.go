package sloconfig

import (
	"maps"
	"testing"
)

func TestFingerprint(t *testing.T) {
	base := map[string]string{
		string(KeyResourceThreshold): `{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 60},
		  "nodeStrategies": [{"name": "a", "nodeSelector": {"matchLabels": {"x": "1", "y": "2"}}, "enable": false}]}`,
		string(KeySystem): `{"clusterStrategy": {"totalNetworkBandwidth": "1000M",
		  "schedFeatures": {"A": true, "B": false}}}`,
	}
	with := func(key, value string) map[string]string {
		out := map[string]string{}
		maps.Copy(out, base)
		if value == "" {
			delete(out, key)
		} else {
			out[key] = value
		}
		return out
	}
	same := map[string]map[string]string{
		"reordered keys and whitespace": with(string(KeyResourceThreshold), `{
		  "nodeStrategies": [{"enable": false, "nodeSelector": {"matchLabels": {"y": "2", "x": "1"}}, "name": "a"}],
		  "clusterStrategy": {"cpuSuppressThresholdPercent": 60, "enable": true}}`),
		"the same quantity written otherwise": with(string(KeySystem),
			`{"clusterStrategy": {"schedFeatures": {"B": false, "A": true}, "totalNetworkBandwidth": "1G"}}`),
		"a default written out": with(string(KeySystem),
			`{"clusterStrategy": {"totalNetworkBandwidth": "1G", "schedFeatures": {"A": true, "B": false}},
			  "nodeStrategies": []}`),
		"a renamed strategy": with(string(KeyResourceThreshold),
			`{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 60},
			  "nodeStrategies": [{"name": "renamed", "nodeSelector": {"matchLabels": {"x": "1", "y": "2"}}, "enable": false}]}`),
		"another controller's key": with("colocation-config", `{"enable": true}`),
	}
	different := map[string]map[string]string{
		"a value": with(string(KeySystem),
			`{"clusterStrategy": {"totalNetworkBandwidth": "2G", "schedFeatures": {"A": true, "B": false}}}`),
		"a selector": with(string(KeyResourceThreshold),
			`{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 60},
			  "nodeStrategies": [{"name": "a", "nodeSelector": {"matchLabels": {"x": "1"}}, "enable": false}]}`),
		"a key removed":              with(string(KeySystem), ""),
		"a key now invalid (frozen)": with(string(KeySystem), `{`),
	}
	want := Load(base, nil).Fingerprint()
	if want == "" || want != Load(base, nil).Fingerprint() {
		t.Fatalf("fingerprint %q is empty or unstable", want)
	}
	for name, data := range same {
		if got := Load(data, nil).Fingerprint(); got != want {
			t.Errorf("%s: the fingerprint changed", name)
		}
	}
	for name, data := range different {
		if got := Load(data, nil).Fingerprint(); got == want {
			t.Errorf("%s: the fingerprint did not change", name)
		}
	}
	// Last good keeps the value but not the state: the fingerprint says so.
	previous := Load(base, nil)
	if got := Load(with(string(KeySystem), `{`), previous).Fingerprint(); got == want {
		t.Error("a key turning last-good did not change the fingerprint")
	}
	if Load(nil, nil).Fingerprint() != Load(map[string]string{}, nil).Fingerprint() {
		t.Error("no ConfigMap and an empty ConfigMap differ")
	}
}
