package sloconfig

import (
	"testing"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

const (
	goodBurst    = `{"clusterStrategy": {"policy": "auto"}}`
	brokenBurst  = `{"clusterStrategy": {"policy": "auto"`
	invalidBurst = `{"clusterStrategy": {"cpuBurstPercent": 0}}`
)

func TestBadInputStates(t *testing.T) {
	good := Load(map[string]string{string(KeyCPUBurst): goodBurst}, nil)
	frozen := Load(map[string]string{string(KeyCPUBurst): brokenBurst}, nil)
	tests := []struct {
		name     string
		data     map[string]string
		previous *Config
		want     SectionState
		policy   slov1alpha1.CPUBurstPolicy // of a node without a stored NodeSLO
	}{
		{"valid", map[string]string{string(KeyCPUBurst): goodBurst}, nil, StateConfigured, slov1alpha1.CPUBurstAuto},
		{"absent", map[string]string{}, good, StateDefault, slov1alpha1.CPUBurstNone},
		{"ConfigMap deleted", nil, good, StateDefault, slov1alpha1.CPUBurstNone},
		{"invalid after a good value: last good", map[string]string{string(KeyCPUBurst): invalidBurst},
			good, StateLastGood, slov1alpha1.CPUBurstAuto},
		{"invalid after defaults: last good is the default", map[string]string{string(KeyCPUBurst): invalidBurst},
			Load(nil, nil), StateLastGood, slov1alpha1.CPUBurstNone},
		{"invalid after last good: still last good", map[string]string{string(KeyCPUBurst): brokenBurst},
			Load(map[string]string{string(KeyCPUBurst): invalidBurst}, good), StateLastGood, slov1alpha1.CPUBurstAuto},
		{"invalid at start-up: frozen", map[string]string{string(KeyCPUBurst): invalidBurst},
			nil, StateFrozen, slov1alpha1.CPUBurstNone},
		{"invalid after frozen: frozen", map[string]string{string(KeyCPUBurst): invalidBurst},
			frozen, StateFrozen, slov1alpha1.CPUBurstNone},
		{"valid again after frozen", map[string]string{string(KeyCPUBurst): goodBurst},
			frozen, StateConfigured, slov1alpha1.CPUBurstAuto},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Load(tt.data, tt.previous)
			r := report(c, KeyCPUBurst)
			if r.State != tt.want {
				t.Errorf("state %s, want %s", r.State, tt.want)
			}
			if invalid := tt.want == StateLastGood || tt.want == StateFrozen; invalid == r.Valid() {
				t.Errorf("errors %v do not fit state %s", r.Errors, r.State)
			}
			if got := c.Resolve(Node{Name: "new"}, nil).Spec.CPUBurstStrategy.Policy; got != tt.policy {
				t.Errorf("policy %s, want %s", got, tt.policy)
			}
		})
	}
}

func TestAFrozenSectionKeepsTheStoredValue(t *testing.T) {
	c := Load(map[string]string{
		string(KeyCPUBurst):        invalidBurst,
		string(KeyHostApplication): `{"applications": [{"qos": "bad"}]}`,
		string(KeySystem):          `{"clusterStrategy": {"minFreeKbytesFactor": 3}}`,
	}, nil)
	stored := &slov1alpha1.NodeSLOSpec{
		CPUBurstStrategy: &slov1alpha1.CPUBurstStrategy{CPUBurstConfig: slov1alpha1.CPUBurstConfig{
			Policy: slov1alpha1.CPUBurstAuto, CPUBurstPercent: new(int64(500))}},
		SystemStrategy:   &slov1alpha1.SystemStrategy{MinFreeKbytesFactor: new(int64(99))},
		HostApplications: []slov1alpha1.HostApplicationSpec{{Name: "kept"}},
	}
	res := c.Resolve(Node{Name: "old"}, stored)
	if res.Spec.CPUBurstStrategy != stored.CPUBurstStrategy {
		t.Errorf("frozen cpu burst %+v, want the stored one", res.Spec.CPUBurstStrategy)
	}
	if len(res.Spec.HostApplications) != 1 || res.Spec.HostApplications[0].Name != "kept" {
		t.Errorf("frozen host applications %+v, want the stored ones", res.Spec.HostApplications)
	}
	if *res.Spec.SystemStrategy.MinFreeKbytesFactor != 3 {
		t.Error("a valid section took the stored value")
	}
	if res.Matches[2].State != StateFrozen || res.Matches[2].Index != -1 {
		t.Errorf("match %+v, want frozen", res.Matches[2])
	}
	// A stored spec without the section: the default.
	res = c.Resolve(Node{Name: "old"}, &slov1alpha1.NodeSLOSpec{})
	const defaultBurst = `{"cpuBurstStrategy":{"policy":"none","cpuBurstPercent":1000,"cfsQuotaBurstPercent":300,` +
		`"cfsQuotaBurstPeriodSeconds":-1,"sharePoolThresholdPercent":50}}`
	if got := specJSON(t, slov1alpha1.NodeSLOSpec{CPUBurstStrategy: res.Spec.CPUBurstStrategy}); got != defaultBurst {
		t.Errorf("frozen section without a stored value: %s", got)
	}
}

// The revision history keeps DataInForce, so that an undo writes back
// exactly what was in force (docs/rollout.md#revision-history-and-undo):
// a valid value as written, the last good one for an invalid value, no
// key for defaults, nothing at all when a key is frozen.
func TestDataInForce(t *testing.T) {
	const good = `{"clusterStrategy": {"enable": true,  "cpuSuppressThresholdPercent": 60}}`
	const burst = `{"clusterStrategy": {"policy": "auto"}}`
	first := Load(map[string]string{string(KeyResourceThreshold): good, string(KeyCPUBurst): burst, "other": "x"}, nil)
	data, ok := first.DataInForce()
	if !ok || len(data) != 2 || data[string(KeyResourceThreshold)] != good || data[string(KeyCPUBurst)] != burst {
		t.Fatalf("valid keys: got %v, %v", data, ok)
	}
	bad := map[string]string{string(KeyResourceThreshold): `{"clusterStrategy": {"cpuSuppressThresholdPercent": 900}}`}
	data, ok = Load(bad, first).DataInForce()
	if !ok || len(data) != 1 || data[string(KeyResourceThreshold)] != good {
		t.Fatalf("an invalid key keeps the last good value, a removed key its defaults: got %v, %v", data, ok)
	}
	if _, ok := Load(bad, nil).DataInForce(); ok {
		t.Fatal("a frozen key has no data in force")
	}
	if data, ok := Load(nil, first).DataInForce(); !ok || len(data) != 0 {
		t.Fatalf("no ConfigMap: got %v, %v", data, ok)
	}
}
