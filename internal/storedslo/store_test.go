package storedslo

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// apiserverStub answers writes with a generation of its choosing and
// remembers the digest annotations sent.
type apiserverStub struct {
	generation int64
	sent       []string
}

func (a *apiserverStub) create(_ context.Context, slo *slov1alpha1.NodeSLO) (*metav1.ObjectMeta, error) {
	return a.answer(slo), nil
}

func (a *apiserverStub) update(_ context.Context, slo *slov1alpha1.NodeSLO) (*metav1.ObjectMeta, error) {
	return a.answer(slo), nil
}

func (a *apiserverStub) answer(slo *slov1alpha1.NodeSLO) *metav1.ObjectMeta {
	a.sent = append(a.sent, slo.Annotations[sloconfig.SpecDigestAnnotation])
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

	if err := s.Write(t.Context(), &NodeSLO{name: "n"}, want.Spec, want); err != nil {
		t.Fatal(err)
	}
	stored := &NodeSLO{name: "n", exists: true, meta: metav1.ObjectMeta{Name: "n", Generation: 1}}
	stub.generation = 2
	if err := s.Write(t.Context(), stored, want.Spec, want); err != nil {
		t.Fatal(err)
	}
	stub.generation = 1 // the spec did not change after all
	if err := s.Write(t.Context(), stored, want.Spec, want); err != nil {
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
