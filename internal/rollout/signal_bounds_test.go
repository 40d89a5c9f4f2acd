package rollout

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// hugeReady is a Ready condition whose status, written by whoever may
// write the Node's status, is 300 KiB: not True, so it reads as NotReady.
func hugeReady(at time.Time) NodeHealth {
	status := corev1.ConditionStatus("False" + strings.Repeat("\x1b[2K", 300<<10/4))
	return NodeHealth{Conditions: []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: status, LastTransitionTime: metav1.NewTime(at)}}}
}

// A Node whose Ready condition carries a 300 KiB status neither freezes
// nor hides the rollout: pending, it is recorded unhealthy before its
// write and the other canary goes; a reached canary showing it halts; the
// record stays far under what the NodeSLORollout's status allows, and the
// signals say the status was cut.
func TestAHugeConditionStatusIsCutInTheRecord(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	old, data := gatedData("60"), gatedData("55")
	f := newGatedFleet(t, old, t0.Add(-time.Hour))
	const cut = "… (cut at 64 bytes)"

	sick := map[string]NodeHealth{"c1": hugeReady(t0.Add(-10 * time.Minute))}
	p := f.plan(Memory{}, nil, data, t0, sick)
	if !slices.Equal(p.Release, []string{"c2"}) {
		t.Fatalf("the canary step released %v, want the healthy canary c2", p.Release)
	}
	if n := len(p.RecordChange.Value); n > 4<<10 {
		t.Errorf("the record is %d bytes with one huge condition status", n)
	}
	if got := recordOf(t, p).Health.Before["c1"]; !strings.Contains(got, cut) || len(got) > maxSignal {
		t.Errorf("c1's signal before its write = %.300q, want it cut and saying so", got)
	}

	f.store("c2", data, t0)
	reached := map[string]NodeHealth{"c1": sick["c1"], "c2": hugeReady(t0.Add(2 * time.Second))}
	halt := f.plan(p.Memory(), &p, data, t0.Add(3*time.Second), reached)
	if !halt.Figures.Halted || len(halt.Release) != 0 {
		t.Fatalf("a reached canary NotReady did not halt: %+v, released %v", halt.Figures, halt.Release)
	}
	if n := len(halt.RecordChange.Value); n > 4<<10 {
		t.Errorf("the record is %d bytes with two huge condition statuses", n)
	}
	if got := recordOf(t, halt).Health.Unhealthy["c2"]; !strings.HasPrefix(got, "Ready=False") ||
		!strings.Contains(got, cut) {
		t.Errorf("c2's verdict = %.300q, want Ready=False… cut and saying so", got)
	}
	for _, n := range halt.Status.Health.Nodes {
		if len(n.Signal) > maxStatusSignal {
			t.Errorf("status signal of %s is %d bytes", n.Name, len(n.Signal))
		}
	}
}

// Every signal the record keeps is bounded, however many bad conditions a
// node shows, and the status of a condition keeps its reading.
func TestSignalsAreBounded(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for _, s := range []corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown} {
		if got := ConditionStatusText(s); got != s {
			t.Errorf("ConditionStatusText(%s) = %q, want it whole", s, got)
		}
	}
	cut := ConditionStatusText(corev1.ConditionStatus("True" + long))
	if len(cut) > MaxConditionStatus || ConditionBad(corev1.NodeReady, cut) != true ||
		ConditionBad(corev1.NodeMemoryPressure, cut) {
		t.Errorf("a cut status %.300q must read as the status it was cut from (not True)", cut)
	}
	if got := setSignal(nil, "n", long)["n"]; len(got) > maxSignal || !strings.HasSuffix(got, "(cut at 256 bytes)") {
		t.Errorf("setSignal kept %d bytes, want at most %d saying where it was cut", len(got), maxSignal)
	}
}
