package rollout

import (
	"testing"
	"time"
)

// The NodeSLORollout's status holds the record in its own typed fields,
// which the apiserver validates and the plugin reads: every field of a
// record, set, comes back as Encode wrote it, so that a record read from
// the status is the record the controller wrote, and a decision that keeps
// it writes nothing.
func TestTheStatusHoldsTheRecordAsEncoded(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 123456789, time.UTC)
	full := Record{
		Target: "f1", Started: t0, Pending: 30, Canaries: 3, Steps: 2, Batched: 7, StepAt: t0.Add(time.Minute),
		Done: true, DoneAt: t0.Add(time.Hour), Revision: 4, RevertOf: "f0", RejectedSince: t0.Add(-time.Hour),
		Health: &HealthRecord{
			Unhealthy: map[string]string{"a": "Ready=False since 12:00:01", "b": "evictions"}, Tolerated: 1,
			HaltedAt: t0.Add(2 * time.Minute), HaltedKey: "k", Revert: true, Judged: 9, Allowed: 1,
			Metrics: map[string]MetricRecord{checkLatency: {Failures: 2, NoData: 1, Errors: 3, Inconclusive: true,
				DryRun: true, Seen: "value 2 outside <= 0.5", At: t0.Add(90 * time.Second), Failed: true}},
			Before: map[string]string{"c": "MemoryPressure=True"},
		},
		Halts: []Halt{{Target: "f0", Revision: 3, HaltedAt: t0.Add(-2 * time.Hour), Revert: true, Summary: "s"}},
	}
	for _, rec := range []Record{full, {Target: "f2", Started: t0}} {
		encoded := rec.Encode()
		api := apiRecord(encoded)
		if api == nil || recordText(api) != encoded {
			t.Fatalf("the status holds %s as %+v, which reads %s", encoded, api, recordText(api))
		}
		back, err := RecordOf(api)
		if err != nil || !back.Equal(rec) {
			t.Errorf("read back %+v (%v), want %+v", back, err, rec)
		}
	}
	if rec, err := RecordOf(nil); err != nil || !rec.IsZero() {
		t.Errorf("no record in the status read as %+v (%v)", rec, err)
	}
}
