package storedslo

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// countingReader counts the reads of NodeSLOs whole.
type countingReader struct {
	client.Reader
	gets, lists int
}

func (r *countingReader) Get(
	ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption,
) error {
	r.gets++
	return r.Reader.Get(ctx, key, obj, opts...)
}

func (r *countingReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	r.lists++
	return r.Reader.List(ctx, list, opts...)
}

// fleet is a cache (metadata) and an apiserver (whole NodeSLOs): the NodeSLO
// "vouched" carries a digest annotation for its generation, the others
// none, and "gone" is in the cache only (deleted since it was listed).
func fleet(t *testing.T, unvouched int) (cache client.Reader, whole *countingReader) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := slov1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	slo := func(name string, annotations map[string]string) *slov1alpha1.NodeSLO {
		return &slov1alpha1.NodeSLO{
			ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1, Annotations: annotations},
			Spec: slov1alpha1.NodeSLOSpec{
				CPUBurstStrategy: &slov1alpha1.CPUBurstStrategy{SharePoolThresholdPercent: ptr.To[int64](50)},
			},
		}
	}
	stored := make([]client.Object, 0, unvouched+2)
	stored = append(stored, slo("vouched", map[string]string{
		SpecDigestAnnotation:  "1/v",
		SpecWrittenAnnotation: "2026-12-04T10:00:02.500Z",
	}))
	for i := range unvouched {
		stored = append(stored, slo(fmt.Sprintf("unvouched-%d", i), nil))
	}
	apiserver := fake.NewClientBuilder().WithScheme(scheme).WithObjects(stored...).Build()
	cached := fake.NewClientBuilder().WithScheme(scheme).WithObjects(append(stored, slo("gone", nil))...).Build()
	return cached, &countingReader{Reader: apiserver}
}

// List stands for each NodeSLO by the digest its annotation vouches for,
// reads the others whole one by one while they are few, and all of them in
// one LIST when they are many or every spec is asked for; a NodeSLO deleted
// before it could be read whole is left out.
func TestListReadsWholeOnlyWhatItMust(t *testing.T) {
	for _, tc := range []struct {
		name                string
		unvouched           int
		withSpecs           bool
		wantGets, wantLists int
		wantVouchedSpecRead bool
	}{
		{name: "few unvouched", unvouched: 2, wantGets: 3},
		{name: "every spec asked for", unvouched: 2, withSpecs: true, wantLists: 1, wantVouchedSpecRead: true},
		{name: "many unvouched", unvouched: maxWholeGets, wantLists: 1, wantVouchedSpecRead: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache, whole := fleet(t, tc.unvouched)
			s := New(whole, nil, nil, nil)
			got, err := s.List(t.Context(), cache, tc.withSpecs)
			if err != nil {
				t.Fatal(err)
			}
			if whole.gets != tc.wantGets || whole.lists != tc.wantLists {
				t.Errorf("read whole by %d GETs and %d LISTs, want %d and %d",
					whole.gets, whole.lists, tc.wantGets, tc.wantLists)
			}
			if len(got) != tc.unvouched+1 || got["gone"] != nil {
				t.Fatalf("listed %d NodeSLOs (gone: %v), want the %d that exist",
					len(got), got["gone"] != nil, tc.unvouched+1)
			}
			vouched := got["vouched"]
			if vouched.Digest() != "v" || !vouched.Exists() ||
				!vouched.WrittenAt().Equal(time.Date(2026, 12, 4, 10, 0, 2, 5e8, time.UTC)) {
				t.Errorf("vouched: digest %q, written at %s", vouched.Digest(), vouched.WrittenAt())
			}
			if (vouched.Spec() != nil) != tc.wantVouchedSpecRead {
				t.Errorf("vouched spec read: %t, want %t", vouched.Spec() != nil, tc.wantVouchedSpecRead)
			}
			for name, n := range got {
				if name == "vouched" {
					continue
				}
				if n.Digest() != "" || n.Spec() == nil || *n.Spec().CPUBurstStrategy.SharePoolThresholdPercent != 50 {
					t.Errorf("%s: digest %q, spec %+v, want its spec read whole", name, n.Digest(), n.Spec())
				}
			}
		})
	}
}
