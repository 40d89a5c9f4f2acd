package sloconfig

import (
	"strings"
	"testing"
)

func TestKeyEventsNameTheKeyInTheirAction(t *testing.T) {
	data := map[string]string{
		string(KeyResourceThreshold): `{"clusterStrategy": {"cpuSuppressThresholdPercent": 150}}`,
		"resource-threshold-confg":   `{}`,
	}
	evs := KeyEvents(data, nil, Load(data, nil), KeyLines{})
	if len(evs) != 2 {
		t.Fatalf("want a Check keys warning and the key's error, got %+v", evs)
	}
	if evs[0].Reason != ReasonConfigWarning || evs[0].Action != "Check keys" ||
		!strings.Contains(evs[0].Note(), "resource-threshold-confg") {
		t.Errorf("the misspelt key: %+v", evs[0])
	}
	if evs[1].Reason != ReasonInvalidConfig || evs[1].Action != "Load "+string(KeyResourceThreshold) ||
		!strings.Contains(evs[1].Note(), "cpuSuppressThresholdPercent") || evs[1].Suffix == "" {
		t.Errorf("the invalid key: %+v (note %q)", evs[1], evs[1].Note())
	}
}
