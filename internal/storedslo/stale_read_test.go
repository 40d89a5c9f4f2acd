package storedslo

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// A reader that has not seen the controller's own last write (a cache a
// moment behind the apiserver) is not decided on: Get reads the NodeSLO
// whole from the apiserver until the write's echo has come back, since
// that echo is dropped and no later event would correct a decision taken
// on the older version.
func TestGetReadsPastAReaderThatHasNotSeenTheLastWrite(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := slov1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	at := func(resourceVersion string, generation int64, digest string) *slov1alpha1.NodeSLO {
		return &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: resourceVersion,
			Generation: generation, Annotations: map[string]string{SpecDigestAnnotation: digest}}}
	}
	behind := fake.NewClientBuilder().WithScheme(scheme).WithObjects(at("41", 1, "1/before")).Build()
	apiserver := fake.NewClientBuilder().WithScheme(scheme).WithObjects(at("42", 2, "2/written")).Build()
	written := &slov1alpha1.NodeSLO{}
	if err := apiserver.Get(t.Context(), client.ObjectKey{Name: "n"}, written); err != nil {
		t.Fatal(err)
	}
	s := New(apiserver, nil, nil, clocktesting.NewFakePassiveClock(time.Unix(0, 0)))

	digestOf := func(want string) {
		t.Helper()
		n, err := s.Get(t.Context(), behind, "n", false)
		if err != nil {
			t.Fatal(err)
		}
		if n.Digest() != want {
			t.Errorf("digest %q, want %q", n.Digest(), want)
		}
	}
	digestOf("before") // nothing written: the reader is trusted
	s.echoes.writing("n", "2/written")
	digestOf("written") // in flight
	s.echoes.wrote("n", written.ResourceVersion)
	digestOf("written") // stored, its echo not back yet
	if s.NotEcho().Update(event.UpdateEvent{ObjectOld: written, ObjectNew: written}) {
		t.Fatal("the write's echo was not recognised")
	}
	digestOf("before") // the echo came back: the reader has seen the write (here a stand-in that never will)
}
