package storedslo

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// apiserverStub answers writes with a generation of its choosing and
// remembers the digest and written-at annotations sent.
type apiserverStub struct {
	generation int64
	sent       []string
	writtenAt  []string
}

func (a *apiserverStub) create(_ context.Context, slo *slov1alpha1.NodeSLO) (*metav1.ObjectMeta, error) {
	return a.answer(slo), nil
}

func (a *apiserverStub) update(_ context.Context, slo *slov1alpha1.NodeSLO) (*metav1.ObjectMeta, error) {
	return a.answer(slo), nil
}

func (a *apiserverStub) answer(slo *slov1alpha1.NodeSLO) *metav1.ObjectMeta {
	a.sent = append(a.sent, slo.Annotations[SpecDigestAnnotation])
	a.writtenAt = append(a.writtenAt, slo.Annotations[SpecWrittenAnnotation])
	return &metav1.ObjectMeta{Name: slo.Name, Generation: a.generation, ResourceVersion: "7"}
}

// A write is stamped with the generation it gives the NodeSLO: 1 for a
// create, one more for an update; when the apiserver answers another
// generation (it normalised the spec to the one stored), the annotation is
// stamped again with that one, so that it never names a generation ahead.
func TestWriteStampsTheGenerationTheWriteGives(t *testing.T) {
	want := sloconfig.StoredForm{Spec: &slov1alpha1.NodeSLOSpec{}, Digest: "d"}
	stub := &apiserverStub{generation: 1}
	s := New(nil, nil, stub, clocktesting.NewFakePassiveClock(time.Unix(0, 0)))

	created := &NodeSLO{name: "n", meta: &metav1.ObjectMeta{}}
	if err := s.Write(t.Context(), created, want.Spec, want, "", time.Time{}); err != nil {
		t.Fatal(err)
	}
	stored := &NodeSLO{name: "n", exists: true, meta: &metav1.ObjectMeta{Name: "n", Generation: 1}}
	stub.generation = 2
	if err := s.Write(t.Context(), stored, want.Spec, want, "", time.Time{}); err != nil {
		t.Fatal(err)
	}
	stub.generation = 1 // the spec did not change after all
	if err := s.Write(t.Context(), stored, want.Spec, want, "", time.Time{}); err != nil {
		t.Fatal(err)
	}
	const first, second = "1/d", "2/d"
	wantSent := []string{first, second, second, first}
	if len(stub.sent) != len(wantSent) {
		t.Fatalf("sent %q, want %q", stub.sent, wantSent)
	}
	for i := range wantSent {
		if stub.sent[i] != wantSent[i] {
			t.Fatalf("sent %q, want %q", stub.sent, wantSent)
		}
	}
}

// A write is stamped with its second, or with the time of the decision it
// carries out when that is later (whole): the nodes written in one second
// under one decision share one value, no node is stamped before its
// decision (docs/rollout.md#after-a-halt), nor in a second after its write
// (docs/rollout.md#which-nodes-are-judged-and-when).
func TestWriteStampsTheSecondOfTheWriteNeverBeforeItsDecisionNorAfterItself(t *testing.T) {
	at := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	decided := at("2026-12-04T10:00:00.7004Z")
	for _, tc := range []struct {
		name          string
		now, decided  time.Time
		wantWrittenAt string
	}{
		{"in the second of its decision", at("2026-12-04T10:00:00.9Z"), decided, "2026-12-04T10:00:00.700400000Z"},
		{"in the millisecond of its decision", at("2026-12-04T10:00:00.7006Z"), decided, "2026-12-04T10:00:00.700400000Z"},
		{"a second later", at("2026-12-04T10:00:01.2Z"), decided, "2026-12-04T10:00:01.000000000Z"},
		{"later in that second", at("2026-12-04T10:00:01.9Z"), decided, "2026-12-04T10:00:01.000000000Z"},
		// Rounded up to the millisecond, this decision would be stamped in
		// the next second, after the write: the health gate would take a
		// condition that turned bad after the write, in its second, for
		// one from before it.
		{"in the last millisecond of a second", at("2026-12-04T10:00:00.9999995Z"), at("2026-12-04T10:00:00.9999991Z"),
			"2026-12-04T10:00:00.999999100Z"},
		{"no decision time", at("2026-12-04T10:00:00.9Z"), time.Time{}, "2026-12-04T10:00:00.000000000Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := sloconfig.StoredForm{Spec: &slov1alpha1.NodeSLOSpec{}, Digest: "d"}
			stub := &apiserverStub{generation: 1}
			s := New(nil, nil, stub, clocktesting.NewFakePassiveClock(tc.now))
			created := &NodeSLO{name: "n", meta: &metav1.ObjectMeta{}}
			if err := s.Write(t.Context(), created, want.Spec, want, "", tc.decided); err != nil {
				t.Fatal(err)
			}
			if len(stub.writtenAt) != 1 || stub.writtenAt[0] != tc.wantWrittenAt {
				t.Fatalf("stamped %q, want %q", stub.writtenAt, tc.wantWrittenAt)
			}
			got := ParseWrittenAt(map[string]string{SpecWrittenAnnotation: stub.writtenAt[0]})
			if got.Before(tc.decided) {
				t.Fatalf("stamped %s, before the decision at %s", got, tc.decided)
			}
			if got.Truncate(time.Second).After(tc.now) {
				t.Fatalf("stamped %s, in a second after the write at %s", got, tc.now)
			}
		})
	}
}
