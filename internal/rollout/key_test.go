package rollout

import (
	"strings"
	"testing"
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

func TestRevisionHistoryLimitDefault(t *testing.T) {
	for _, data := range []map[string]string{
		nil, {string(sloconfig.KeyRollout): `{}`}, {string(sloconfig.KeyRollout): `{"paused": 3}`},
	} {
		if got := LoadKey(data).RevisionHistoryLimit(); got != DefaultRevisionHistoryLimit {
			t.Errorf("%v: got %d, want the default", data, got)
		}
	}
	three := map[string]string{string(sloconfig.KeyRollout): `{"revisionHistoryLimit": 3}`}
	if got := LoadKey(three).RevisionHistoryLimit(); got != 3 {
		t.Errorf("revisionHistoryLimit 3: got %d", got)
	}
}

// What the CRD's schema checks (bounds, a canary's required selector) is
// test/crd/strategy_test.go's; the retired key's JSON, which kubectl
// nodeslo rollout convert reads, is parsed as the ConfigMap's keys are.
func TestLoadKey(t *testing.T) {
	tests := []struct {
		name     string
		raw      string // "" with absent: the key is not in the ConfigMap
		absent   bool
		errs     []string // substrings, one per error, in order
		warnings []string // substrings, one per warning, in order
		check    func(t *testing.T, p *Policy)
	}{{
		name: "absent", absent: true,
	}, {
		name: "empty object: all defaults", raw: `{}`,
		check: func(t *testing.T, p *Policy) {
			if p.MaxNodesPerStep.String() != "10%" || p.StepInterval != time.Minute ||
				p.Canary != nil || p.CanarySoak != 5*time.Minute || p.Paused {
				t.Errorf("defaults: %+v", p)
			}
		},
	}, {
		name: "every field set",
		raw: `{"maxNodesPerStep": 10, "stepIntervalSeconds": 2, "paused": true,
		       "canary": {"nodeSelector": {"matchLabels": {"pool": "canary"}}, "soakSeconds": 3}}`,
		check: func(t *testing.T, p *Policy) {
			if p.StepSize(1000) != 10 || p.StepInterval != 2*time.Second || p.CanarySoak != 3*time.Second || !p.Paused {
				t.Errorf("policy: %+v", p)
			}
			if !p.IsCanary(map[string]string{poolLabel: "canary"}) || p.IsCanary(map[string]string{poolLabel: poolWeb}) {
				t.Error("canary selector does not select by pool=canary")
			}
		},
	}, {
		name: "percent bounds accepted",
		raw: `{"maxNodesPerStep": "100%", "stepIntervalSeconds": 86400,
		       "canary": {"nodeSelector": {}, "soakSeconds": 0}}`,
		warnings: []string{`canary.nodeSelector: {} matches every node`},
		check: func(t *testing.T, p *Policy) {
			if p.StepSize(7) != 7 || p.CanarySoak != 0 {
				t.Errorf("policy: %+v", p)
			}
		},
	}, {
		name: "wrong types with positions",
		raw:  "{\n  \"stepIntervalSeconds\": \"60\",\n  \"paused\": \"yes\"\n}",
		errs: []string{
			`stepIntervalSeconds: Invalid value: "60": must be an integer (line 2, column 26)`,
			`paused: Invalid value: "yes": must be true or false (line 3, column 13)`,
		},
	}, {
		name: "unknown field warned with did-you-mean",
		raw:  "{\"stepIntervalSecond\": 5}",
		warnings: []string{
			`stepIntervalSecond: unknown field, ignored; did you mean "stepIntervalSeconds"? (line 1, column 2)`,
		},
		check: func(t *testing.T, p *Policy) {
			if p.StepInterval != time.Minute {
				t.Errorf("an unknown field changed the interval: %v", p.StepInterval)
			}
		},
	}, {
		name: "canary selector with a misspelt field is an error",
		raw:  `{"canary": {"nodeSelector": {"matchLabel": {"a": "b"}}}}`,
		errs: []string{`canary.nodeSelector.matchLabel: Forbidden: unknown field in a label selector`},
	}, {
		name: "canary selector with a bad operator",
		raw:  `{"canary": {"nodeSelector": {"matchExpressions": [{"key": "a", "operator": "Near"}]}}}`,
		errs: []string{`canary.nodeSelector.matchExpressions[0].operator: Invalid value: "Near"`},
	}, {
		name: "malformed JSON", raw: `{"paused": tru}`,
		errs: []string{"spec.strategy: Invalid value: invalid JSON at line 1, column 13"},
	}, {
		name: "not an object", raw: `[]`,
		errs: []string{"the document must be a JSON object"},
	}, {
		name: "null canary means no canary", raw: `{"canary": null}`,
		check: func(t *testing.T, p *Policy) {
			if p.Canary != nil {
				t.Error("a null canary compiled to a selector")
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := map[string]string{"resource-qos-config": "{}"}
			if !tt.absent {
				data[string(sloconfig.KeyRollout)] = tt.raw
			}
			got := LoadKey(data)
			if got.Present == tt.absent {
				t.Errorf("Present = %v", got.Present)
			}
			msgs := got.Messages()
			if len(msgs) != len(tt.errs) {
				t.Fatalf("errors:\n%s\nwant %d", strings.Join(msgs, "\n"), len(tt.errs))
			}
			for i, want := range tt.errs {
				if !strings.Contains(msgs[i], want) || !strings.HasPrefix(msgs[i], "spec.strategy") {
					t.Errorf("error %d = %q, want it to contain %q", i, msgs[i], want)
				}
			}
			if len(got.Warnings) != len(tt.warnings) {
				t.Fatalf("warnings: %q, want %d", got.Warnings, len(tt.warnings))
			}
			for i, want := range tt.warnings {
				if !strings.Contains(got.Warnings[i], want) {
					t.Errorf("warning %d = %q, want it to contain %q", i, got.Warnings[i], want)
				}
			}
			if got.Valid() != (got.Policy != nil || tt.absent) {
				t.Errorf("Valid() = %v but Policy = %v", got.Valid(), got.Policy)
			}
			if tt.check != nil && got.Policy != nil {
				tt.check(t, got.Policy)
			}
		})
	}
}

func TestStepSize(t *testing.T) {
	const tenPercent = `"10%"`
	tests := []struct {
		max     string
		pending int
		want    int
	}{
		{`10`, 3, 10}, {tenPercent, 40, 4}, {tenPercent, 41, 5}, {`"1%"`, 3, 1}, {tenPercent, 0, 1}, {`"100%"`, 40, 40},
	}
	for _, tt := range tests {
		got := LoadKey(map[string]string{string(sloconfig.KeyRollout): `{"maxNodesPerStep": ` + tt.max + `}`})
		if got.Policy == nil {
			t.Fatalf("%s: %v", tt.max, got.Messages())
		}
		if n := got.Policy.StepSize(tt.pending); n != tt.want {
			t.Errorf("maxNodesPerStep %s of %d pending: step size %d, want %d", tt.max, tt.pending, n, tt.want)
		}
	}
}
