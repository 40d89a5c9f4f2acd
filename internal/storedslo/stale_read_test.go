package storedslo

import (
	"context"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
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
	s.echoes.writing(sent("n", "2/written"))
	digestOf("written") // in flight
	s.echoes.wrote("n", &written.ObjectMeta)
	digestOf("written") // stored, its echo not back yet
	if s.NotEcho().Update(event.UpdateEvent{ObjectOld: written, ObjectNew: written}) {
		t.Fatal("the write's echo was not recognised")
	}
	digestOf("before") // the echo came back: the reader has seen the write (here a stand-in that never will)
}

// List shows the NodeSLOs the controller created that a reader has not
// shown yet as written, without reading them: one created a moment ago is
// not taken for a node without one (which a staged rollout would give its
// target at once, outside the steps). An update not shown yet is listed as
// the reader has it: the rollout counts a step's writes once the cache
// shows them. Once a create's echo has come back, the reader is trusted.
func TestListShowsTheOwnCreatesAReaderHasNotShownYet(t *testing.T) {
	const oldName, newName, cachedDigest = "old", "new", "before"
	scheme := runtime.NewScheme()
	if err := slov1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	old := &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: oldName, ResourceVersion: "41", Generation: 1,
		Annotations: map[string]string{SpecDigestAnnotation: "1/" + cachedDigest}}}
	behind := fake.NewClientBuilder().WithScheme(scheme).WithObjects(old.DeepCopy()).Build()
	apiserver := fake.NewClientBuilder().WithScheme(scheme).WithObjects(old.DeepCopy()).Build()
	whole := &countingReader{Reader: apiserver}
	s := New(whole, nil, generationWriter{ClientWriter{Client: apiserver}},
		clocktesting.NewFakePassiveClock(time.Unix(0, 0)))

	digests := func() map[string]string {
		t.Helper()
		listed, err := s.List(t.Context(), behind, false)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for name, n := range listed {
			if !n.Exists() {
				t.Errorf("%s listed without a NodeSLO", name)
			}
			out[name] = n.Digest()
		}
		return out
	}
	if got := digests(); !maps.Equal(got, map[string]string{oldName: cachedDigest}) {
		t.Fatalf("nothing written: %v, want the reader's", got)
	}

	// A create and an update, stored; the reader shows neither.
	created := &NodeSLO{name: newName, meta: &metav1.ObjectMeta{}}
	spec := &slov1alpha1.NodeSLOSpec{}
	createdForm := sloconfig.StoredForm{Spec: spec, Digest: "created"}
	if err := s.Write(t.Context(), created, spec, createdForm, "", time.Time{}); err != nil {
		t.Fatal(err)
	}
	stored, err := s.Get(t.Context(), behind, oldName, false)
	if err != nil {
		t.Fatal(err)
	}
	updated := sloconfig.StoredForm{Spec: spec, Digest: "updated"}
	if err := s.Write(t.Context(), stored, spec, updated, "", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if got := digests(); !maps.Equal(got, map[string]string{oldName: cachedDigest, newName: "created"}) {
		t.Errorf("the writes stored, not shown by the reader: %v, want the create as written, "+
			"the update as the reader has it", got)
	}
	if whole.gets+whole.lists != 0 {
		t.Errorf("%d GETs and %d LISTs of NodeSLOs whole, want none: the create is known", whole.gets, whole.lists)
	}

	// Their echoes come back (as the watch brings them) before the reader shows them.
	for _, name := range []string{newName, oldName} {
		echo := &slov1alpha1.NodeSLO{}
		if err := apiserver.Get(t.Context(), client.ObjectKey{Name: name}, echo); err != nil {
			t.Fatal(err)
		}
		if s.NotEcho().Update(event.UpdateEvent{ObjectOld: echo, ObjectNew: echo}) {
			t.Fatalf("the echo of %s was not recognised", name)
		}
	}
	if got := digests(); !maps.Equal(got, map[string]string{oldName: cachedDigest}) {
		t.Errorf("the echoes back: %v, want the reader's (here a stand-in that never shows the writes)", got)
	}
}

// generationWriter is a ClientWriter to a fake client that gives each write
// the generation its digest annotation names, as the apiserver does when
// the spec changes: the fake client moves no generation.
type generationWriter struct{ ClientWriter }

func (w generationWriter) create(ctx context.Context, slo *slov1alpha1.NodeSLO) (*metav1.ObjectMeta, error) {
	slo.Generation = namedGeneration(slo)
	return w.ClientWriter.create(ctx, slo)
}

func (w generationWriter) update(ctx context.Context, slo *slov1alpha1.NodeSLO) (*metav1.ObjectMeta, error) {
	slo.Generation = namedGeneration(slo)
	return w.ClientWriter.update(ctx, slo)
}

func namedGeneration(slo *slov1alpha1.NodeSLO) int64 {
	generation, _, _ := strings.Cut(slo.Annotations[SpecDigestAnnotation], "/")
	n, _ := strconv.ParseInt(generation, 10, 64)
	return n
}
