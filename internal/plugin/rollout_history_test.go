package plugin

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

var threshold = string(sloconfig.KeyResourceThreshold)

// testHistory is three revisions, each changing the threshold.
func testHistory(now time.Time) History {
	rev := func(n int64, value string, outcome rollout.Outcome, reached int, age time.Duration) rollout.Revision {
		return rollout.Revision{Number: n, Fingerprint: value, Created: now.Add(-age), ChangedBy: "kubectl-edit",
			Data:    map[string]string{threshold: `{"clusterStrategy": {"cpuSuppressThresholdPercent": ` + value + `}}`},
			Outcome: outcome, Reached: reached}
	}
	h := History{ConfigMap: ConfigMapRef{Namespace: "koordinator-system", Name: "slo-controller-config"},
		Revisions: []rollout.Revision{
			rev(1, "60", rollout.OutcomeAllAtOnce, -1, 3*time.Hour),
			rev(2, "55", rollout.OutcomeSuperseded, 3, 2*time.Minute),
			rev(3, "60", rollout.OutcomeInProgress, 13, 30*time.Second),
		}}
	h.Revisions[2].ChangeCause = "back to 60"
	return h
}

func TestHistoryListing(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	if err := testHistory(now).Write(&out, now); err != nil {
		t.Fatal(err)
	}
	want := `REVISION  AGE  CHANGED BY    KEYS CHANGED               REACHED  OUTCOME                CHANGE-CAUSE
1         3h   kubectl-edit  (first kept)               -        AllAtOnce              -
2         2m   kubectl-edit  resource-threshold-config  3        Superseded             -
3         30s  kubectl-edit  resource-threshold-config  13       InProgress (in force)  back to 60
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if err := (History{ConfigMap: ConfigMapRef{Namespace: "ns", Name: "cm"}}).Write(&out, now); err != nil ||
		!strings.Contains(out.String(), "ConfigMap ns/cm has no revision history yet") {
		t.Errorf("empty history: %q, %v", out.String(), err)
	}
}

func TestHistoryRevisionShowsItsDiffAgainstTheOneInForce(t *testing.T) {
	h := testHistory(time.Now())
	var out bytes.Buffer
	if err := h.WriteRevision(&out, h.Revisions[1]); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Revision 2 of ConfigMap koordinator-system/slo-controller-config",
		"  resource-threshold-config: |\n    {\"clusterStrategy\": {\"cpuSuppressThresholdPercent\": 55}}\n",
		"Putting it back would change, from revision 3 in force:\n" +
			"  resource-threshold-config.clusterStrategy.cpuSuppressThresholdPercent: 60 -> 55\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in\n%s", want, out.String())
		}
	}
	out.Reset()
	_ = h.WriteRevision(&out, h.Revisions[0])
	if !strings.Contains(out.String(), "The configuration in force (revision 3) is this one.") {
		t.Errorf("revision 1 has the configuration in force:\n%s", out.String())
	}
}

func TestUndoTargets(t *testing.T) {
	h := testHistory(time.Now())
	// Revision 1 has the configuration in force: the one before to differ is 2.
	if r, err := h.Previous(); err != nil || r.Number != 2 {
		t.Errorf("previous: %d, %v", r.Number, err)
	}
	const notKept = "revision 7 of ConfigMap koordinator-system/slo-controller-config is not kept; kept: 1, 2, 3"
	if _, err := h.Find(7); err == nil || !strings.Contains(err.Error(), notKept) {
		t.Errorf("find 7: %v", err)
	}
	h.Revisions = h.Revisions[2:]
	if _, err := h.Previous(); err == nil || !strings.Contains(err.Error(), "no earlier revision than 3") {
		t.Errorf("previous of a history of one: %v", err)
	}
}

func TestUndoDataPutsBackTheKeysTheControllerReadsOnly(t *testing.T) {
	rolloutKey := string(sloconfig.KeyRollout)
	current := map[string]string{
		threshold: "new", string(sloconfig.KeyCPUBurst): "burst", rolloutKey: `{"paused": false}`, "notes": "x"}
	to := rollout.Revision{Data: map[string]string{threshold: "old", string(sloconfig.KeySystem): "system"}}
	want := map[string]string{
		threshold: "old", string(sloconfig.KeySystem): "system", rolloutKey: `{"paused": false}`, "notes": "x"}
	if got := rollout.UndoData(current, to); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if current[threshold] != "new" {
		t.Error("UndoData wrote into the ConfigMap's data it was given")
	}
}

// keptRevision is revision number of data's configuration, as the revision
// history keeps it (the controller writes no status on it).
func keptRevision(number int64, data map[string]string) rollout.Revision {
	cfg := sloconfig.Load(data, nil)
	d, _ := cfg.DataInForce()
	return rollout.Revision{Number: number, Fingerprint: cfg.Fingerprint(), Data: d,
		Outcome: rollout.OutcomeInProgress, Reached: 3, RolloutKey: data[string(sloconfig.KeyRollout)]}
}
