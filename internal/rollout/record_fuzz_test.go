package rollout

import (
	"testing"
	"time"
)

// FuzzParseRecord feeds the rollout record's parser (status.rolloutRecord
// as the core reads it) any text: it must never panic, a value
// it accepts encodes and parses back to the same record, and a plan made on
// it, accepted or not, never panics either (a value that does not parse
// starts a new rollout: docs/rollout-design.md#state-and-why-a-restart-does-not-burst).

// jsonNull is JSON's null, a value every parser of the cluster's input must take.
const jsonNull = "null"

func FuzzParseRecord(f *testing.F) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	full := Record{
		Target: "f1", Started: t0, Pending: 3, Canaries: 1, Steps: 2, StepAt: t0.Add(time.Minute),
		Health:   &HealthRecord{Unhealthy: map[string]string{"a": "NotReady"}, HaltedAt: t0, HaltedKey: "k"},
		Revision: 4, RevertOf: "f0", Halts: []Halt{{Target: "f0", Revision: 3, HaltedAt: t0, Summary: "s"}},
	}
	for _, seed := range []string{
		"", "{}", jsonNull, "[]", `"x"`, full.Encode(), Record{Target: "f", Done: true, DoneAt: t0}.Encode(),
		`{"target": "f", "pending": -1, "canaries": 5, "steps": -3}`, `{"steps": 9223372036854775807}`,
		`{"started": "0000-01-01T00:00:00Z", "stepAt": "9999-12-31T23:59:59+23:59"}`,
		`{"halts": [{"target": "f", "haltedAt": "2026-12-01T12:00:00Z"}, {}], "health": {}}`,
		`{"target": "\ud800", "health": {"metrics": {"m": {}}, "before": {"a": ""}}}`, `{"target": 1}`, `{`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		r, err := ParseRecord(value)
		if err == nil {
			encoded := r.Encode()
			again, err := ParseRecord(encoded)
			if encoded == "" || err != nil || again.Encode() != encoded {
				t.Errorf("%q parsed to a record that encodes as %q, which parses to %q (%v)",
					value, encoded, again.Encode(), err)
			}
			// The status holds it as encoded, or (counts beyond the API's
			// int32, which no fleet reaches) not at all, never altered.
			if api := apiRecord(encoded); api != nil && recordText(api) != encoded {
				t.Errorf("the status holds %q as %q", encoded, recordText(api))
			}
		}
		in := planInput(`{"maxNodesPerStep": 1, "canary": {"nodeSelector": {"matchLabels": {"pool": "web"}}}, `+
			`"healthGate": {"maxUnhealthyNodes": 0}}`, planFleet())
		in.Record, in.HasRecord, in.Now = value, true, t0.Add(time.Hour)
		Memory{}.Plan(in)
	})
}
