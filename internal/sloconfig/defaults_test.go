package sloconfig

import "testing"

// The exact wire form written when there is no ConfigMap: agents depend on
// totalNetworkBandwidth "0", resourceQOSStrategy {} and extensions {"Object":{}}.
func TestNoConfigMapWritesTheDefaults(t *testing.T) {
	const want = `{"resourceUsedThresholdWithBE":{"enable":false,"cpuSuppressThresholdPercent":65,` +
		`"cpuSuppressPolicy":"cpuset","memoryEvictThresholdPercent":70,"cpuEvictPolicy":"evictByRealLimit"},` +
		`"resourceQOSStrategy":{},` +
		`"cpuBurstStrategy":{"policy":"none","cpuBurstPercent":1000,"cfsQuotaBurstPercent":300,` +
		`"cfsQuotaBurstPeriodSeconds":-1,"sharePoolThresholdPercent":50},` +
		`"systemStrategy":{"totalNetworkBandwidth":"0"},"extensions":{"Object":{}}}`
	for name, data := range map[string]map[string]string{
		"no ConfigMap":               nil,
		"ConfigMap without our keys": {"colocation-config": `{"enable": true}`},
		"ConfigMap with empty sections": {
			string(KeyResourceThreshold): "{}",
			string(KeyCPUBurst):          `{"clusterStrategy": null}`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := Load(data, nil)
			if !c.Valid() {
				t.Fatalf("unexpected errors: %v", c.Reports())
			}
			res := c.Resolve(Node{Name: "n1", Labels: map[string]string{"a": "b"}}, nil)
			if got := specJSON(t, res.Spec); got != want {
				t.Errorf("spec\n got %s\nwant %s", got, want)
			}
			if len(res.Warnings) != 0 {
				t.Errorf("unexpected warnings %v", res.Warnings)
			}
		})
	}
}

func TestAbsentKeysReportDefaultAndPresentKeysConfigured(t *testing.T) {
	c := Load(map[string]string{string(KeyCPUBurst): "{}"}, nil)
	for _, r := range c.Reports() {
		want := StateDefault
		if r.Key == KeyCPUBurst {
			want = StateConfigured
		}
		if r.State != want {
			t.Errorf("%s: state %s, want %s", r.Key, r.State, want)
		}
	}
	if got := len(c.Reports()); got != len(Keys) {
		t.Errorf("%d reports, want one per key (%d)", got, len(Keys))
	}
}
