package sloconfig

import (
	"encoding/json"
	"strings"
	"testing"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// poolLabel is the node label the tests select nodes by.
const (
	poolLabel = "pool"
	poolWeb   = "web"
)

// JSON names of the spec sections the tests look at.
const (
	thresholdSection = "resourceUsedThresholdWithBE"
	qosSection       = "resourceQOSStrategy"
	burstSection     = "cpuBurstStrategy"
	systemSection    = "systemStrategy"
	hostAppsSection  = "hostApplications"
)

// specJSON is the wire form of a spec, as the controller writes it.
func specJSON(t *testing.T, spec slov1alpha1.NodeSLOSpec) string {
	t.Helper()
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatalf("marshalling the spec: %v", err)
	}
	return string(b)
}

// sectionJSON is one section of a resolved spec, by its JSON name.
func sectionJSON(t *testing.T, spec slov1alpha1.NodeSLOSpec, name string) string {
	t.Helper()
	var all map[string]json.RawMessage
	if err := json.Unmarshal([]byte(specJSON(t, spec)), &all); err != nil {
		t.Fatal(err)
	}
	return string(all[name])
}

// compact normalises JSON (whitespace, key order) so that documents compare by content.
func compact(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON literal in test: %v\n%s", err, s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// report returns the report of key.
func report(c *Config, key Key) SectionReport {
	for _, r := range c.Reports() {
		if r.Key == key {
			return r
		}
	}
	return SectionReport{}
}

// errorsText joins a report's error lines.
func errorsText(r SectionReport) string { return strings.Join(r.Messages(), "\n") }

// warningsText joins a report's warnings.
func warningsText(r SectionReport) string { return strings.Join(r.Warnings, "\n") }
