package controller

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
)

// These narrow tests drive the write-race and read-failure paths, which a
// real apiserver produces only by chance; the envtest suite covers the rest.

// newTestReconciler returns a reconciler over a fake client holding a Node
// and a NodeSLO whose spec is out of date, with the defaults loaded.
func newTestReconciler(t *testing.T, funcs interceptor.Funcs) (*NodeSLOReconciler, client.Client, *countingReader) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := slov1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).
		WithObjects(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}},
			&slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}).
		WithInterceptorFuncs(funcs).Build()
	published := &snapshots{}
	published.publish(&Snapshot{Config: sloconfig.Load(nil, nil)})
	live := &countingReader{Reader: c}
	stored := storedslo.New(live, c, storedslo.ClientWriter{Client: c}, clocktesting.NewFakePassiveClock(time.Now()))
	return &NodeSLOReconciler{
		cache: c, live: live, snapshots: published, stored: stored, recorder: events.NewFakeRecorder(10),
	}, c, live
}

type countingReader struct {
	client.Reader
	gets int
}

func (r *countingReader) Get(
	ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption,
) error {
	r.gets++
	return r.Reader.Get(ctx, key, obj, opts...)
}

func conflictingUpdates(n *int) interceptor.Funcs {
	return interceptor.Funcs{Update: func(
		ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption,
	) error {
		if *n > 0 {
			*n--
			return apierrors.NewConflict(schema.GroupResource{Group: "slo.koordinator.sh", Resource: "nodeslos"},
				obj.GetName(), errors.New("the object has been modified"))
		}
		return c.Update(ctx, obj, opts...)
	}}
}

var request = reconcile.Request{NamespacedName: client.ObjectKey{Name: "n1"}}

func TestReconcileRetriesAConflictWithLiveReads(t *testing.T) {
	conflicts := 2
	r, c, live := newTestReconciler(t, conflictingUpdates(&conflicts))
	updated := testutil.ToFloat64(reconcileTotal.WithLabelValues(OpUpdate, ResultSuccess))

	res, err := r.Reconcile(t.Context(), request)
	if err != nil || !res.IsZero() {
		t.Fatalf("Reconcile = %+v, %v; want the conflicts absorbed", res, err)
	}
	if live.gets == 0 {
		t.Error("the retries did not read past the cache")
	}
	stored := &slov1alpha1.NodeSLO{}
	if err := c.Get(t.Context(), request.NamespacedName, stored); err != nil {
		t.Fatal(err)
	}
	if stored.Spec.CPUBurstStrategy == nil {
		t.Error("the NodeSLO was not brought up to date")
	}
	if got := testutil.ToFloat64(reconcileTotal.WithLabelValues(OpUpdate, ResultSuccess)); got != updated+1 {
		t.Errorf("update successes went from %v to %v, want one more", updated, got)
	}
}

func TestReconcileRequeuesQuietlyWhenConflictsPersist(t *testing.T) {
	conflicts := 1000
	r, _, _ := newTestReconciler(t, conflictingUpdates(&conflicts))
	requeued := testutil.ToFloat64(reconcileTotal.WithLabelValues(OpUpdate, ResultRequeueAfter))
	failed := testutil.ToFloat64(reconcileTotal.WithLabelValues(OpUpdate, ResultError))

	res, err := r.Reconcile(t.Context(), request)
	if err != nil {
		t.Fatalf("Reconcile returned %v; a conflict must not surface as an error", err)
	}
	if res.RequeueAfter == 0 {
		t.Error("Reconcile did not ask to be retried")
	}
	// Counted as controller-runtime counts the same reconcile: requeued, not an error.
	if got := testutil.ToFloat64(reconcileTotal.WithLabelValues(OpUpdate, ResultRequeueAfter)); got != requeued+1 {
		t.Errorf("update requeues went from %v to %v, want one more", requeued, got)
	}
	if got := testutil.ToFloat64(reconcileTotal.WithLabelValues(OpUpdate, ResultError)); got != failed {
		t.Errorf("update errors went from %v to %v, want none more", failed, got)
	}
}

func TestReconcileReturnsAFailedRead(t *testing.T) {
	broken := interceptor.Funcs{Get: func(
		context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption,
	) error {
		return apierrors.NewInternalError(errors.New("etcd is down"))
	}}
	r, _, _ := newTestReconciler(t, broken)
	failed := testutil.ToFloat64(reconcileTotal.WithLabelValues(OpGet, ResultError))

	if _, err := r.Reconcile(t.Context(), request); err == nil {
		t.Fatal("Reconcile hid a failed read; it must be returned for backoff")
	}
	if got := testutil.ToFloat64(reconcileTotal.WithLabelValues(OpGet, ResultError)); got != failed+1 {
		t.Errorf("get errors went from %v to %v, want one more", failed, got)
	}
}

func TestReconcileDoesNothingBeforeTheFirstLoad(t *testing.T) {
	r, c, _ := newTestReconciler(t, interceptor.Funcs{})
	r.snapshots = &snapshots{}

	if res, err := r.Reconcile(t.Context(), request); err != nil || !res.IsZero() {
		t.Fatalf("Reconcile = %+v, %v; want nothing done", res, err)
	}
	stored := &slov1alpha1.NodeSLO{}
	if err := c.Get(t.Context(), request.NamespacedName, stored); err != nil {
		t.Fatal(err)
	}
	if stored.Spec.CPUBurstStrategy != nil {
		t.Error("the NodeSLO was written before the configuration was loaded")
	}
}
